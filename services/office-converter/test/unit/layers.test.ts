/**
 * Imports inside src/ run one way: each folder (or top-level file) imports only from its own
 * folder and from those in a lower layer: the conversions (`convert/`) know nothing of HTTP, the
 * routes call them, the app holds the routes, the service builds it from the settings.
 * (The logic is services/user-service's layers test, with this service's layers.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

// Lowest first. Within one layer, modules do not import each other.
const LAYERS: string[][] = [
  ['config', 'convert'],
  ['routes'],
  ['app'],
  ['service'],
  ['main', 'index'],
];

const SRC = resolve(__dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `users` for src/users/users.ts, `app` for src/app.ts. */
const moduleOf = (file: string) => relative(SRC, file).split(sep)[0]!.replace(/\.ts$/, '');

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
});
