/**
 * Imports inside src/ run one way: each folder (or top-level file) imports only from its own
 * folder and from those in a lower layer: the MinerU content list below everything, extraction
 * (poppler, tesseract) below the tasks that run it, the routes over the tasks, then the app, the
 * service that builds it from the settings, and the entry points.
 */
import { resolve } from 'node:path';
import { expectLayers } from '@pelita/kit/testing';

// Lowest first. Within one layer, modules do not import each other.
const LAYERS: string[][] = [
  ['config', 'mineru'],
  ['extract'],
  ['tasks'],
  ['routes'],
  ['app'],
  ['service'],
  ['main', 'index'],
];

it('imports in src/ point down the layers, never in a cycle', () => {
  expectLayers(resolve(__dirname, '../../src'), LAYERS);
});
