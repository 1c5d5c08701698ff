/**
 * Imports inside src/ run one way: each folder (or top-level file) imports only from its own
 * folder and from those in a lower layer. A domain folder reaching up (admins → auth, records →
 * dashboard) fails here with the file and the import that does it. And the dashboard's pages and
 * the API's routes call domain modules: no SQL of their own, no TOTP or recovery-code logic.
 * (The same logic as user-service's layers test, with this service's layers.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

// Lowest first. Within one layer, modules do not import each other.
const LAYERS: string[][] = [
  ['config', 'metrics', 'store'],
  ['activity', 'integrations'],
  ['records'],
  ['admins'],
  ['api', 'auth'],
  ['routes'],
  ['dashboard'],
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

/** `auth` for src/auth/sign-in.ts, `app` for src/app.ts. */
const moduleOf = (file: string) => relative(SRC, file).split(sep)[0]!.replace(/\.ts$/, '');

const layerOf = (module: string) => LAYERS.findIndex((layer) => layer.includes(module));

function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/from '(\.[^']+)'/g)].map((match) => match[1]!);
}

/** Imports that bring code, not only types (`import type { X }` is erased at build). */
function valueImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^import (?!type )[^;]*? from '([^']+)'/gms)].map((match) => match[1]!);
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

  it('keeps SQL, repositories and second-factor logic out of pages and routes', () => {
    const offending = files
      .filter((file) => ['dashboard', 'routes'].includes(moduleOf(file)))
      .flatMap((file) => {
        const found: string[] = [];
        if (/\.query\s*[<(]/.test(readFileSync(file, 'utf8'))) found.push('runs SQL');
        for (const specifier of valueImports(file)) {
          if (/(^pg$|\/store\/|\/auth\/(totp|recovery-codes)$|^otpauth$)/.test(specifier)) {
            found.push(`imports ${specifier}`);
          }
        }
        return found.map((what) => `${relative(SRC, file)} ${what}`);
      });
    expect(offending).toEqual([]);
  });
});
