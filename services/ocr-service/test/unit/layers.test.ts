/**
 * Imports inside src/ run one way: each module imports only from its own folder and from
 * modules in a lower layer. The two entry points' folders, `api/` and `worker/`, are layered
 * inside (`api/routes` below `api/app` below `api/service`), and neither imports the other.
 * (The logic is services/user-service's layers test, with this service's layers.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

// Lowest first. Within one layer, modules do not import each other.
const LAYERS: string[][] = [
  // Building blocks: one dependency each (Redis, OpenSearch, S3, an engine, the converter).
  ['config', 'tasks', 'status', 'queue', 'storage', 'conversion', 'engines'],
  ['api/api-metrics', 'api/task-body', 'api/task-inputs', 'api/unavailable'],
  ['results', 'api/task-schemas', 'worker/task-failure'],
  ['summaries', 'ocr-metrics', 'api/document-schemas'],
  ['shared-state', 'api/document-ingest', 'api/task-submission', 'worker/task-input'],
  ['api/routes', 'worker/run-task'],
  ['api/app', 'worker/app', 'worker/worker-loop'],
  ['api/service', 'worker/service'],
  ['main', 'worker', 'index'],
];

const SRC = resolve(__dirname, '../../src');
const ENTRY_FOLDERS = ['api', 'worker'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `engines` for src/engines/engine.ts, `api/routes` for src/api/routes/tasks.ts, `worker` for src/worker.ts. */
function moduleOf(file: string): string {
  const [first, second] = relative(SRC, file).split(sep);
  const module = ENTRY_FOLDERS.includes(first!) && second ? `${first}/${second}` : first!;
  return module.replace(/\.ts$/, '');
}

const layerOf = (module: string) => LAYERS.findIndex((layer) => layer.includes(module));

function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/from '(\.[^']+)'/g)].map((match) => match[1]!);
}

describe('import direction in src/', () => {
  const files = sourceFiles(SRC);

  it('places every module in a layer', () => {
    const unplaced = [...new Set(files.map(moduleOf))].filter((module) => layerOf(module) < 0);
    expect(unplaced).toEqual([]);
  });

  it('has no import from a module in the same or a higher layer', () => {
    const upward: string[] = [];
    for (const file of files) {
      const from = moduleOf(file);
      for (const specifier of relativeImports(file)) {
        const to = moduleOf(resolve(dirname(file), specifier));
        if (to !== from && layerOf(to) >= layerOf(from)) {
          upward.push(`${relative(SRC, file)} imports ${specifier}`);
        }
      }
    }
    expect(upward).toEqual([]);
  });

  it('keeps the task API and the worker apart (what both need is below them)', () => {
    const crossing = files.flatMap((file) => {
      const from = moduleOf(file).split('/')[0];
      if (from !== 'api' && from !== 'worker') return [];
      return relativeImports(file)
        .filter((specifier) => {
          const to = moduleOf(resolve(dirname(file), specifier)).split('/')[0];
          return (to === 'api' || to === 'worker') && to !== from;
        })
        .map((specifier) => `${relative(SRC, file)} imports ${specifier}`);
    });
    expect(crossing).toEqual([]);
  });
});
