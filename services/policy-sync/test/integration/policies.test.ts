/**
 * The Rego policies under `policies/` through OPA's own tools: `opa check --strict`, `opa fmt`,
 * and `opa test --coverage`, which must pass with every line of the policies covered.
 * (Here rather than under `policies/`: this service owns the data contract those rules read.)
 */
import { execFile } from 'node:child_process';
import { requireEnv } from '@pelita/testenv';
import { POLICIES_DIR } from '@pelita/testenv';

// `opa test --coverage` can take more than jest's default 5 s on a busy machine.
jest.setTimeout(60_000);

const { OPA_BIN } = requireEnv('OPA_BIN');
const REQUIRED_COVERAGE = 100;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function opa(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(OPA_BIN, args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

function expectSuccess(run: Run, what: string): void {
  if (run.code !== 0)
    throw new Error(`${what} failed (exit ${run.code}):\n${run.stdout}${run.stderr}`);
}

describe('the Rego policies', () => {
  it('pass `opa check --strict`', async () => {
    expectSuccess(await opa('check', '--strict', POLICIES_DIR), 'opa check --strict');
  });

  it('are formatted as `opa fmt` formats them', async () => {
    const run = await opa('fmt', '--list', '--fail', POLICIES_DIR);
    expectSuccess(run, 'opa fmt --list --fail (files listed need `opa fmt -w policies`)');
  });

  it('pass every `opa test` test', async () => {
    const run = await opa('test', POLICIES_DIR, '--format', 'json');
    expectSuccess(run, 'opa test');
    const results = JSON.parse(run.stdout) as Array<{ name: string; fail?: boolean }>;
    expect(results.length).toBeGreaterThanOrEqual(20);
    expect(results.filter((result) => result.fail)).toEqual([]);
  });

  it(`cover ${REQUIRED_COVERAGE}% of the policy lines`, async () => {
    const run = await opa('test', POLICIES_DIR, '--coverage', '--format', 'json');
    expectSuccess(run, 'opa test --coverage');
    const report = JSON.parse(run.stdout) as {
      coverage: number;
      files: Record<string, { coverage: number; not_covered?: unknown }>;
    };
    const uncovered = Object.entries(report.files)
      .filter(([, file]) => file.coverage < REQUIRED_COVERAGE)
      .map(([name, file]) => ({ name, not_covered: file.not_covered }));
    expect(uncovered).toEqual([]);
    expect(report.coverage).toBe(REQUIRED_COVERAGE);
  });
});
