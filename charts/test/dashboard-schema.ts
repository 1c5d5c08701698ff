/**
 * Checks a Grafana dashboard's JSON against `@grafana/schema`'s `Dashboard` type with the
 * TypeScript compiler: the JSON text becomes the initialiser of a `DashboardJson` constant in a
 * file that exists only in memory, so every literal is checked against the type (a JSON import
 * would widen `"row"` to `string` and check nothing).
 */
import path from 'node:path';
import ts from 'typescript';

const TYPE_MODULE = path.join(__dirname, 'grafana-dashboard-json.ts');

const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2023,
  module: ts.ModuleKind.Node16,
  moduleResolution: ts.ModuleResolutionKind.Node16,
  skipLibCheck: true,
  types: [],
};

/** One place the type check rejects, at the line of the dashboard's JSON. */
export interface SchemaProblem {
  file: string;
  line: number;
  message: string;
}

/**
 * What the type check finds in each dashboard (file name → JSON text); empty when all fit.
 * One program for all of them: loading Grafana's types is most of the time.
 */
export function dashboardSchemaProblems(dashboards: Record<string, string>): SchemaProblem[] {
  // The first line imports the type; the JSON starts on the second.
  const checkFile = (file: string) => path.join(__dirname, `${file}.schema-check.ts`);
  const sources = new Map(
    Object.entries(dashboards).map(([file, json]) => [
      checkFile(file),
      {
        file,
        text:
          `import type { DashboardJson } from './${path.basename(TYPE_MODULE, '.ts')}';\n` +
          `export const dashboard: DashboardJson = ${json};\n`,
      },
    ]),
  );
  const base = ts.createCompilerHost(OPTIONS);
  const host: ts.CompilerHost = {
    ...base,
    getSourceFile: (name, version, ...rest) => {
      const source = sources.get(path.resolve(name));
      return source
        ? ts.createSourceFile(name, source.text, version)
        : base.getSourceFile(name, version, ...rest);
    },
    fileExists: (name) => sources.has(path.resolve(name)) || base.fileExists(name),
    readFile: (name) => sources.get(path.resolve(name))?.text ?? base.readFile(name),
  };

  const program = ts.createProgram([...sources.keys()], OPTIONS, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const source = diagnostic.file && sources.get(path.resolve(diagnostic.file.fileName));
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (!source || diagnostic.start === undefined) {
      // Not in a dashboard: the check itself is broken (the type module, the package).
      return { file: diagnostic.file?.fileName ?? '(compiler)', line: 0, message };
    }
    const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start);
    // line is 0-based and the JSON begins on the file's second line: the same number, 1-based.
    return { file: source.file, line, message };
  });
}
