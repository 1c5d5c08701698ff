/**
 * Imports inside src/ run one way: each folder (or top-level file) imports only from those in a
 * lower layer, and no file is part of an import cycle. A domain folder reaching up (roles → users,
 * users → auth) fails here with the file and the import that does it.
 */
import { resolve } from 'node:path';
import { expectLayers } from '@pelita/kit/testing';

// Lowest first. Within one layer, modules do not import each other.
const LAYERS: string[][] = [
  ['config', 'timestamps', 'background-calls', 'db', 'actor', 'credentials', 'mail'],
  ['license', 'policy-sync', 'core-backend', 'activity'],
  ['roles'],
  ['access'],
  ['users'],
  ['auth'],
  ['schemas'],
  ['routes'],
  ['app'],
  ['service'],
  ['main', 'index'],
];

it('imports in src/ point down the layers, never in a cycle, and routes stay off repositories', () => {
  expectLayers(resolve(__dirname, '../../src'), LAYERS, {
    forbidden: [
      { module: 'routes', imports: /-repository$/, because: 'routes call domain modules' },
    ],
  });
});
