/**
 * Imports inside src/ run one way: paging, settings and the database at the bottom, then
 * workspaces (who is a member), the access lists every area asks, the areas (lowest first as
 * they build on each other), the schemas and routes, the app, the service. A domain module
 * reaching up (a repository importing a route, a module importing schemas/) fails here.
 */
import { resolve } from 'node:path';
import { expectLayers } from '@pelita/kit/testing';

// Lowest first. Within one layer, modules do not import each other.
const LAYERS: string[][] = [
  ['paging', 'config', 'db', 'crypto', 'auth'],
  ['users'],
  ['workspaces'],
  ['access'],
  ['retrieval', 'topics', 'app-keys', 'sources', 'dashboard'],
  ['documents'],
  ['audios', 'deletion', 'chats'],
  ['workspace-config'],
  ['schemas', 'caller'],
  ['routes'],
  ['app'],
  ['service'],
  ['main', 'index'],
];

it('imports in src/ point down the layers, never in a cycle, and routes stay off repositories', () => {
  expectLayers(resolve(__dirname, '../../src'), LAYERS, {
    forbidden: [
      { module: 'routes', imports: /-repository$/, because: 'routes call domain modules' },
      {
        module: 'routes',
        imports: /knowledge-index$/,
        because: 'routes retrieve through services',
      },
    ],
  });
});
