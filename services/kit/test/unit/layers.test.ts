/**
 * The kit's own files import one way: each file (or folder) only from those in a lower layer,
 * and no file is part of an import cycle. A new file goes in the lowest layer above everything it
 * imports.
 */
import { resolve } from 'node:path';
import { expectLayers } from '@pelita/kit/testing';

// Lowest first. Within one layer, modules do not import each other.
const LAYERS: string[][] = [
  // No kit imports.
  [
    'client-gone',
    'concurrency-limit',
    'config',
    'dependency-failure',
    'error-message',
    'expect-layers',
    'fast-path-registry',
    'heap-tuning',
    'input-kind',
    'lifecycle',
    'metrics',
    'metric-series',
    'model-json',
    'password-hash',
    'postgres-transaction',
    'raw-body',
    'redact',
    'request-classes',
    'run-tool',
    'stored-text',
    'email-address',
    'summarizer-client',
    'trace-context',
    'tracing-sdk',
  ],
  // Errors, logging, tracing and what builds on one leaf.
  [
    'errors',
    'logger',
    'tracing',
    'test-passwords',
    'fast-route',
    'pool-metrics',
    'poll-loop',
    'postgres-migrations',
    'redis-client',
    'object-store',
    'opensearch-client',
  ],
  // Routes and what builds on errors or the logger.
  [
    'route',
    'auth',
    'postgres-pool',
    'model-errors',
    'request-context',
    'upload',
    'target-policy',
    'secret-store',
    'serve',
    'instrument',
    'tenant-index',
  ],
  ['legacy-index-move', 'structured-output'],
  [
    'health',
    'openapi',
    'validate',
    'activity-log',
    'safe-download',
    'run-service',
    'resource-routes',
  ],
  ['create-service'],
  // The entries.
  ['index', 'testing'],
];

it('imports in src/ point down the layers, never in a cycle', () => {
  expectLayers(resolve(__dirname, '../../src'), LAYERS);
});
