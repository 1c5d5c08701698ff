/**
 * Imports inside src/ run one way: each module imports only from its own folder and from
 * modules in a lower layer, and no file takes part in a cycle. The two entry points' folders,
 * `api/` and `worker/`, are layered inside (`api/routes` below `api/app` below `api/service`),
 * and neither imports the other.
 */
import { resolve } from 'node:path';
import { expectLayers } from '@pelita/kit/testing';

// Lowest first. Within one layer, modules do not import each other.
const LAYERS: string[][] = [
  // Building blocks: one dependency each (Redis, OpenSearch, S3, an engine, the converter).
  ['config', 'tasks', 'status', 'queue', 'storage', 'conversion', 'engines'],
  ['api/api-metrics', 'api/task-body', 'api/task-inputs', 'api/unavailable'],
  ['results', 'api/task-schemas', 'worker/task-failure'],
  ['summaries', 'ocr-metrics', 'api/document-schemas'],
  ['shared-state', 'api/document-ingest', 'api/task-submission', 'worker/task-input'],
  ['api/routes', 'worker/run-task', 'worker/run-summary'],
  ['api/app', 'worker/app', 'worker/worker-loop'],
  ['api/service', 'worker/service'],
  ['main', 'worker', 'index'],
];

const SRC = resolve(__dirname, '../../src');

it('imports in src/ point down the layers, never in a cycle', () => {
  expectLayers(SRC, LAYERS, { nested: ['api', 'worker'] });
});

it('keeps the task API and the worker apart (what both need is below them)', () => {
  const modules = LAYERS.flat();
  const forbidden = modules
    .filter((module) => module.startsWith('api/') || module.startsWith('worker/'))
    .map((module) => ({
      module,
      imports: module.startsWith('api/') ? /(^|\/)worker(\/|$)/ : /(^|\/)api(\/|$)/,
      because: 'the task API and the worker share only what is below them',
    }));
  expectLayers(SRC, LAYERS, { nested: ['api', 'worker'], forbidden });
});
