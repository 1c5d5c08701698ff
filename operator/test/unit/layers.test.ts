/**
 * Imports inside operator/src run one way: each folder (or top-level file) imports only from its
 * own folder and from those in a lower layer, and no chain of imports between files comes back
 * to where it started (type imports count: a cycle closed by a type is still two modules that
 * cannot be read apart). The renderers stay pure: no API client, no I/O. A module reaching up
 * (the catalog reading the PlatformInstall, a renderer calling the client) fails here with the
 * file and the import that does it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { expectLayers } from '@pelita/kit/testing';

// Lowest first. Within one layer, modules do not import each other.
const LAYERS: string[][] = [
  // Facts about the services, the operator's settings, its metrics: they import nothing here.
  ['service-catalog', 'config', 'metrics'],
  // The PlatformInstall (schema, CRD, rules), read from the catalog; the platform Secret's keys.
  ['crd', 'platform-keys'],
  // Pure builders of the children, the API client, and the clients deleting an install's data
  // on its servers: none knows the others.
  ['render', 'kube', 'data'],
  // Decide, apply, report; the policy files read for the renderers.
  ['controller', 'policies'],
  ['app'],
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

/** `render` for src/render/ingress.ts, `service-catalog` for src/service-catalog.ts. */
const moduleOf = (file: string) => relative(SRC, file).split(sep)[0]!.replace(/\.ts$/, '');

describe('import direction in operator/src', () => {
  const files = sourceFiles(SRC);

  it('points every import down the layers, never in a cycle (type imports included)', () => {
    expectLayers(SRC, LAYERS);
  });

  it('keeps the renderers pure: client-node for its types only, no I/O', () => {
    const offending = files
      .filter((file) => moduleOf(file) === 'render')
      .flatMap((file) => {
        const text = readFileSync(file, 'utf8');
        const valueImports = [...text.matchAll(/^import (?!type )[^;]*?from '([^']+)'/gms)].map(
          (match) => match[1]!,
        );
        return valueImports
          .filter(
            (s) =>
              s === '@kubernetes/client-node' || /^node:(fs|net|http|https|child_process)/.test(s),
          )
          .map((s) => `${relative(SRC, file)} imports ${s}`);
      });
    expect(offending).toEqual([]);
  });
});
