/**
 * Imports inside src/ run one way: each folder (or top-level file) imports only from those in a
 * lower layer, and no file is part of an import cycle. A domain folder reaching up (admins → auth,
 * records → dashboard) fails here with the file and the import that does it. And the dashboard's
 * pages and the API's routes call domain modules: no SQL of their own, no TOTP or recovery-code
 * logic.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expectLayers } from '@pelita/kit/testing';

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

it('imports in src/ point down the layers, never in a cycle', () => {
  expectLayers(SRC, LAYERS);
});

/**
 * Imports that bring code, not only types (`import type { X }` is erased at build), so a page may
 * name a repository's row type but not call it. The kit's `forbidden` rules cannot say this: they
 * see relative specifiers only (not `pg` or `otpauth`), count type imports too, and read no code.
 */
function valueImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^import (?!type )[^;]*? from '([^']+)'/gms)].map((match) => match[1]!);
}

it('keeps SQL, repositories and second-factor logic out of pages and routes', () => {
  const offending = ['dashboard', 'routes'].flatMap((module) =>
    readdirSync(join(SRC, module), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .flatMap((name) => {
        const file = join(SRC, module, name);
        const found: string[] = [];
        if (/\.query\s*[<(]/.test(readFileSync(file, 'utf8'))) found.push('runs SQL');
        for (const specifier of valueImports(file)) {
          if (/(^pg$|\/store\/|\/auth\/(totp|recovery-codes)$|^otpauth$)/.test(specifier)) {
            found.push(`imports ${specifier}`);
          }
        }
        return found.map((what) => `${module}/${name} ${what}`);
      }),
  );
  expect(offending).toEqual([]);
});
