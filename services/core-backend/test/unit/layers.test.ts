/**
 * Imports inside src/ run one way. Between areas: paging, settings and the database at the
 * bottom, then users, workspaces (who is a member, who asks), the access lists every area asks,
 * the areas lowest first as they build on each other, the app, the service. Inside an area:
 * repositories hold the SQL and index calls, the domain decides, schemas shape the HTTP answers,
 * routes parse and call one domain function. A repository reaching up, or a domain module
 * importing schemas or routes, fails here.
 */
import { resolve } from 'node:path';
import { expectLayers } from '@pelita/kit/testing';

// Lowest first. Within one layer, areas do not import each other.
const LAYERS: string[][] = [
  ['paging', 'config', 'db', 'crypto', 'http-schemas', 'area'],
  // The fields and the mapper the responses of stored rows share.
  ['row-schemas'],
  // The servers every area is given (pool, Redis, OpenSearch, activity log, metrics).
  ['platform'],
  ['users', 'auth'],
  ['workspaces'],
  ['access'],
  ['retrieval', 'topics', 'app-keys', 'sources', 'dashboard'],
  ['documents'],
  ['audios', 'deletion', 'chats'],
  ['workspace-config'],
  ['embed', 'open-api', 'messaging'],
  ['app'],
  ['service'],
  ['main', 'index'],
];

// Inside every area, lowest first; files named otherwise are the domain.
const ROLES = [
  { name: 'repository', files: /(^|-)repository$/ },
  { name: 'domain' },
  { name: 'schemas', files: /(^|-)schemas$/ },
  { name: 'routes', files: /(^|-)routes$|^member-first$|^answer-events$/ },
  // Each area's area.ts puts it together; app, service and main put the areas together.
  { name: 'composition', files: /(^|-)area$|^(app|service|main|index)$/ },
];

it('imports in src/ point down the layers and roles, never in a cycle', () => {
  expectLayers(resolve(__dirname, '../../src'), LAYERS, {
    roles: ROLES,
    forbidden: [
      {
        module: 'routes',
        imports: /knowledge-index$/,
        because: 'routes retrieve through services',
      },
    ],
  });
});
