/**
 * Every query and write of a service's index goes through the tenant-scoped handle
 * (src/tenant-index.ts): on an index many installs share, a raw `client.search(...)` elsewhere
 * would read every install's documents. This test type-checks the services' and the operator's
 * sources and fails on any use of the OpenSearch client's document methods outside the handle and
 * the legacy-index move. Index administration (`client.indices.*`, `client.cluster.*`) is free.
 */
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(__dirname, '../../../..');
const ALLOWED = ['services/kit/src/tenant-index.ts', 'services/kit/src/legacy-index-move.ts'];

// The client's members that read or write documents (or send any request at all: `transport`).
const DOCUMENT_METHODS = new Set([
  'search',
  'msearch',
  'searchTemplate',
  'msearchTemplate',
  'count',
  'get',
  'getSource',
  'mget',
  'exists',
  'explain',
  'termvectors',
  'mtermvectors',
  'index',
  'create',
  'update',
  'delete',
  'bulk',
  'deleteByQuery',
  'updateByQuery',
  'reindex',
  'scroll',
  'helpers',
  'transport',
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function scannedFiles(): string[] {
  const services = readdirSync(join(ROOT, 'services'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(ROOT, 'services', entry.name, 'src'));
  return [...services, join(ROOT, 'operator/src')].flatMap((dir) => {
    try {
      return sourceFiles(dir);
    } catch {
      return [];
    }
  });
}

/** `file:line member` of every document method used on an OpenSearch client in `files`. */
function rawClientUses(files: string[], extra?: { path: string; text: string }): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    baseUrl: ROOT,
    // The kit's sources, not its build output (which may be stale or missing).
    paths: {
      '@pelita/kit': ['services/kit/src/index.ts'],
      '@pelita/kit/*': ['services/kit/src/*'],
    },
  };
  const host = ts.createCompilerHost(options);
  if (extra) {
    const readFile = host.readFile.bind(host);
    const getSourceFile = host.getSourceFile.bind(host);
    host.readFile = (path) => (path === extra.path ? extra.text : readFile(path));
    host.fileExists = (
      (fileExists) => (path: string) =>
        path === extra.path || fileExists(path)
    )(host.fileExists.bind(host));
    host.getSourceFile = (path, language, ...rest) =>
      path === extra.path
        ? ts.createSourceFile(path, extra.text, language)
        : getSourceFile(path, language, ...rest);
  }
  const roots = extra ? [...files, extra.path] : files;
  const program = ts.createProgram(roots, options, host);
  const checker = program.getTypeChecker();
  const isOpenSearchClient = (type: ts.Type): boolean => {
    const symbol = type.getSymbol();
    return (
      symbol?.getName() === 'Client' &&
      (symbol.declarations ?? []).some((declaration) =>
        declaration.getSourceFile().fileName.includes('@opensearch-project/opensearch'),
      )
    );
  };
  const found: string[] = [];
  for (const fileName of roots) {
    const rel = relative(ROOT, fileName);
    if (ALLOWED.includes(rel)) continue;
    const source = program.getSourceFile(fileName);
    if (!source) continue;
    const visit = (node: ts.Node): void => {
      const member = ts.isPropertyAccessExpression(node)
        ? { name: node.name.text, of: node.expression }
        : ts.isElementAccessExpression(node) && ts.isStringLiteral(node.argumentExpression)
          ? { name: node.argumentExpression.text, of: node.expression }
          : undefined;
      if (
        member &&
        DOCUMENT_METHODS.has(member.name) &&
        isOpenSearchClient(checker.getTypeAtLocation(member.of))
      ) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        found.push(`${rel}:${line + 1} ${member.name}`);
      }
      // Destructured methods: `const { search } = client`.
      if (
        ts.isVariableDeclaration(node) &&
        ts.isObjectBindingPattern(node.name) &&
        node.initializer &&
        isOpenSearchClient(checker.getTypeAtLocation(node.initializer))
      ) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        found.push(`${rel}:${line + 1} destructured`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('raw OpenSearch calls', () => {
  it('no service or operator source queries or writes documents but through the tenant-scoped handle', () => {
    expect(rawClientUses(scannedFiles())).toEqual([]);
  });

  it('is caught when a service calls the client directly', () => {
    const probe = join(ROOT, 'services/core-backend/src/retrieval/probe.ts');
    const text = [
      "import { createOpenSearchClient } from '@pelita/kit';",
      "const client = createOpenSearchClient({ OPENSEARCH_URL: 'http://localhost:9200' });",
      "export const all = () => client.search({ index: 'pelita-knowledge' });",
      "export const put = () => client['index']({ index: 'x', body: {} });",
      'export const { bulk } = client;',
      "export const admin = () => client.indices.refresh({ index: 'x' });",
    ].join('\n');
    expect(rawClientUses([], { path: probe, text })).toEqual([
      'services/core-backend/src/retrieval/probe.ts:3 search',
      'services/core-backend/src/retrieval/probe.ts:4 index',
      'services/core-backend/src/retrieval/probe.ts:5 destructured',
    ]);
  });
});
