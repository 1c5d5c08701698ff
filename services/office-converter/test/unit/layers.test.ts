/**
 * Imports inside src/ run one way: each folder (or top-level file) imports only from its own
 * folder and from those in a lower layer: the conversions (`convert/`) know nothing of HTTP, the
 * routes call them, the app holds the routes, the service builds it from the settings.
 */
import { resolve } from 'node:path';
import { expectLayers } from '@pelita/kit/testing';

// Lowest first. Within one layer, modules do not import each other.
const LAYERS: string[][] = [
  ['config', 'convert'],
  ['routes'],
  ['app'],
  ['service'],
  ['main', 'index'],
];

it('imports in src/ point down the layers, never in a cycle', () => {
  expectLayers(resolve(__dirname, '../../src'), LAYERS);
});
