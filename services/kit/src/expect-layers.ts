/**
 * The layering of a service's src/ as a test: each module (a top-level folder or file) imports
 * only from modules in a lower layer, and no file takes part in an import cycle. Reads the
 * relative imports of the .ts files; throws one error listing every problem with its file.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** A rule beyond the layers: files of `module` never import a specifier matching `imports`. */
export interface ForbiddenImport {
  module: string;
  imports: RegExp;
  because: string;
}

/**
 * What a file does inside its module, known by its name (without `.ts`): `files` matches the
 * names of a role; the one role without `files` takes every other file.
 */
export interface FileRole {
  name: string;
  files?: RegExp;
}

export interface LayerOptions {
  forbidden?: ForbiddenImport[];
  /**
   * File roles, lowest first (`repository`, `domain`, `schemas`, `routes`, `area`): a file never
   * imports a file of a higher role in its own module; from another module it may import that
   * module's domain files and below (a repository may ask the access lists for their filter).
   */
  roles?: FileRole[];
  /**
   * Folders whose entries are modules of their own (`api` makes `api/routes` and `api/app`
   * modules): a service with two entry points layers each inside.
   */
  nested?: string[];
}

/**
 * `layers` lists module names, lowest layer first (`[['config', 'db'], ['users'], ['routes'],
 * ['app'], ['main', 'index']]`); modules of one layer do not import each other.
 */
export function expectLayers(srcDir: string, layers: string[][], options: LayerOptions = {}) {
  const src = resolve(srcDir);
  const files = sourceFiles(src);
  const name = (file: string) => relative(src, file);
  const moduleOf = (file: string) => {
    const [first, second] = name(file).split(sep);
    const nested = second !== undefined && options.nested?.includes(first!);
    return (nested ? `${first}/${second}` : first!).replace(/\.ts$/, '');
  };
  const layerOf = (module: string) => layers.findIndex((layer) => layer.includes(module));
  const roles = options.roles ?? [];
  const domainRole = roles.findIndex((role) => !role.files);
  const roleOf = (file: string) => {
    const base = name(file).split(sep).pop()!.replace(/\.ts$/, '');
    const index = roles.findIndex((role) => role.files?.test(base));
    return index >= 0 ? index : domainRole;
  };
  const problems: string[] = [];

  for (const module of new Set(files.map(moduleOf))) {
    if (layerOf(module) < 0) problems.push(`${module} is in no layer`);
  }
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const from = moduleOf(file);
    const targets: string[] = [];
    for (const specifier of relativeImports(file)) {
      const target = resolveImport(dirname(file), specifier);
      if (target === undefined) continue; // not a source file (JSON, assets): no layer, no cycle
      targets.push(target);
      const to = moduleOf(target);
      if (to !== from && layerOf(to) >= layerOf(from) && layerOf(from) >= 0) {
        const how = layerOf(to) === layerOf(from) ? 'same layer' : 'upward';
        problems.push(`${name(file)} imports ${specifier} (${how}: ${from} → ${to})`);
      }
      // Another module's lower parts (its domain, its repositories) serve any file.
      const reach = to === from ? roleOf(file) : Math.max(roleOf(file), domainRole);
      if (roles.length > 0 && roleOf(target) > reach) {
        const [own, its] = [roles[roleOf(file)]?.name, roles[roleOf(target)]?.name];
        problems.push(`${name(file)} imports ${specifier} (a ${own} file reaching a ${its} file)`);
      }
    }
    for (const rule of options.forbidden ?? []) {
      if (from !== rule.module) continue;
      for (const specifier of relativeImports(file).filter((s) => rule.imports.test(s))) {
        problems.push(`${name(file)} imports ${specifier} (${rule.because})`);
      }
    }
    graph.set(file, targets);
  }
  for (const cycle of importCycles(graph)) {
    problems.push(`import cycle: ${cycle.map(name).join(' → ')}`);
  }
  if (problems.length > 0) {
    throw new Error(`layers of ${src}:\n  ${problems.join('\n  ')}`);
  }
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Static, side-effect, dynamic and require imports, multi-line ones included; comment lines skipped. */
function relativeImports(file: string): string[] {
  const code = readFileSync(file, 'utf8').replace(/^\s*(\/\/|\/\*|\*).*$/gm, '');
  const pattern = /(?:\bfrom|\bimport|\brequire)\s*\(?\s*['"](\.{1,2}(?:\/[^'"]*)?)['"]/g;
  return [...code.matchAll(pattern)].map((match) => match[1]!);
}

function resolveImport(dir: string, specifier: string): string | undefined {
  const base = resolve(dir, specifier.replace(/\.js$/, ''));
  const candidates = [`${base}.ts`, join(base, 'index.ts')];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile());
}

/** Each cycle once, as the files along it with the first repeated at the end. */
function importCycles(graph: Map<string, string[]>): string[][] {
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
    for (const target of graph.get(file) ?? []) visit(target);
    path.pop();
    done.add(file);
  };
  for (const file of graph.keys()) visit(file);
  return cycles;
}
