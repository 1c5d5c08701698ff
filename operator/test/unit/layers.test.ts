/**
 * Imports inside operator/src run one way: each folder (or top-level file) imports only from its
 * own folder and from those in a lower layer, and no chain of imports between files comes back
 * to where it started (type imports count: a cycle closed by a type is still two modules that
 * cannot be read apart). The renderers stay pure: no API client, no I/O. A module reaching up
 * (the catalog reading the PlatformInstall, a renderer calling the client) fails here with the
 * file and the import that does it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

// Lowest first. Within one layer, modules do not import each other.
const LAYERS: string[][] = [
  // Facts about the services, the operator's settings, its metrics: they import nothing here.
  ['service-catalog', 'config', 'metrics'],
  // The PlatformInstall (schema, CRD, rules), read from the catalog; the platform Secret's keys.
  ['crd', 'platform-keys'],
  // Pure builders of the children, and the API client: neither knows the other.
  ['render', 'kube'],
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

const layerOf = (module: string) => LAYERS.findIndex((layer) => layer.includes(module));

/** Every module specifier of `import … from`, `export … from` and `import '…'`. */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import) '([^']+)'/g)].map((match) => match[1]!);
}

const relativeImports = (file: string) => specifiers(file).filter((s) => s.startsWith('.'));

/** The file an import names: `./meta` is meta.ts, `../render` is render/index.ts. */
function resolveImport(file: string, specifier: string): string {
  const base = resolve(dirname(file), specifier);
  return existsSync(`${base}.ts`) ? `${base}.ts` : join(base, 'index.ts');
}

/** Each cycle once, as the files it passes through, starting and ending at the same file. */
function findCycles(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string) => {
    const at = path.indexOf(file);
    if (at >= 0) {
      cycles.push([...path.slice(at), file]);
      return;
    }
    if (done.has(file)) return;
    path.push(file);
    for (const next of graph.get(file) ?? []) visit(next);
    path.pop();
    done.add(file);
  };
  for (const file of graph.keys()) visit(file);
  return cycles;
}

describe('import direction in operator/src', () => {
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

  it('has no import cycle, type imports included', () => {
    const graph = new Map(
      files.map((file) => [file, relativeImports(file).map((s) => resolveImport(file, s))]),
    );
    const cycles = findCycles(graph).map((cycle) =>
      cycle.map((file) => relative(SRC, file)).join(' -> '),
    );
    expect(cycles).toEqual([]);
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
