/**
 * Runs schemathesis (installed by `make testenv`, `SCHEMATHESIS_BIN`) against a running
 * service's OpenAPI document. Checks: responses match the documented statuses, content types
 * and schemas; invalid input is rejected with a 4xx; and no 5xx is a crash (`no_crash` in
 * `python/pelita_checks.py`: only documented, deliberate 5xx bodies pass).
 *
 * Every phase runs: the schema's examples, the coverage phase (boundary values, every parameter
 * missing or of the wrong type: a fixed set per operation, whatever `maxExamples` is), random
 * fuzzing (`maxExamples` cases per operation) and the stateful phase. The tests size
 * `maxExamples` for `make test`; `FUZZ_EXAMPLES` raises every fuzz test to at least that many,
 * for a soak run: `FUZZ_EXAMPLES=200 npx jest --selectProjects integration --testPathPatterns fuzz`.
 * It never lowers a test's own size: some tests assert on what their cases reached.
 *
 * `FUZZ_REACH_FILE=<path>` records what a run reached, one line per response (phase, operation,
 * status, the checks that ran on it, response time), and appends schemathesis' report to
 * `<path>.report`: the evidence that a test's size can shrink (the same operation/status and
 * operation/check pairs at the smaller size). Run one fuzz test per file.
 */
import { execFile } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireEnv } from '@pelita/testenv';

export interface FuzzOptions {
  /** Base URL of the running service; its document is `${baseUrl}/api-docs.json`. */
  baseUrl: string;
  /** Random test cases per operation (default 40); `FUZZ_EXAMPLES` may raise it. */
  maxExamples?: number;
  /** Fixed seed so a failure reproduces (default 1). */
  seed?: number;
  /** Headers sent with every request (e.g. a service token). */
  headers?: Record<string, string>;
  /** Operations to skip, as `METHOD /path` regular expressions over the path (e.g. `^/metrics`). */
  excludePathRegex?: string;
  /** Checks in addition to the defaults. */
  extraChecks?: string[];
}

export interface FuzzResult {
  passed: boolean;
  /** Schemathesis' report, shown when the run fails. */
  output: string;
}

const CHECKS = [
  'status_code_conformance',
  'content_type_conformance',
  'response_schema_conformance',
  'negative_data_rejection',
  'no_crash',
];

/** The test's own size, or `FUZZ_EXAMPLES` when that is more (a soak run). */
function examplesPerOperation(fromTest = 40): number {
  const soak = process.env.FUZZ_EXAMPLES;
  if (soak === undefined || soak === '') return fromTest;
  const examples = Number(soak);
  if (!Number.isInteger(examples) || examples < 1) {
    throw new Error(`FUZZ_EXAMPLES must be a positive integer, got ${JSON.stringify(soak)}`);
  }
  return Math.max(fromTest, examples);
}

export function runSchemathesis(options: FuzzOptions): Promise<FuzzResult> {
  const { SCHEMATHESIS_BIN } = requireEnv('SCHEMATHESIS_BIN');
  const args = [
    'run',
    `${options.baseUrl}/api-docs.json`,
    '--checks',
    [...CHECKS, ...(options.extraChecks ?? [])].join(','),
    '--max-examples',
    String(examplesPerOperation(options.maxExamples)),
    '--seed',
    String(options.seed ?? 1),
    '--workers',
    '1',
    '--no-color',
    '--generation-database',
    'none',
    '--suppress-health-check',
    'all',
    '--request-timeout',
    '30',
    // The operational endpoints are the kit's, fuzzed once in the kit's own tests.
    '--exclude-path-regex',
    options.excludePathRegex ?? '^/(metrics|api-docs)',
  ];
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    args.push('--header', `${name}: ${value}`);
  }
  const env = {
    ...process.env,
    PYTHONPATH: join(__dirname, '..', 'python'),
    SCHEMATHESIS_HOOKS: 'pelita_checks',
  };
  return new Promise((resolve) => {
    execFile(
      SCHEMATHESIS_BIN,
      args,
      // Run outside the repository: schemathesis keeps a `.schemathesis` cache in its cwd.
      { env, cwd: tmpdir(), maxBuffer: 16 * 1024 * 1024, timeout: 10 * 60_000 },
      (error, stdout, stderr) => {
        // Reach recording (python/pelita_checks.py) keeps the report beside what was reached.
        const reachFile = process.env.FUZZ_REACH_FILE;
        if (reachFile) appendFileSync(`${reachFile}.report`, `${stdout}${stderr}`);
        resolve({ passed: error === null, output: `${stdout}${stderr}` });
      },
    );
  });
}
