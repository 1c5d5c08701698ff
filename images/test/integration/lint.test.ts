// hadolint over images/*.Dockerfile, actionlint over .github/workflows (shellcheck on their `run:`
// scripts included) and shellcheck over the shell scripts: no finding at all. The binaries come
// from `make testenv`; `make lint` runs the same tools (tools/lint-extra.sh).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { requireEnv } from '@pelita/testenv';

const ROOT = path.resolve(__dirname, '../../..');
const { HADOLINT_BIN, ACTIONLINT_BIN, SHELLCHECK_BIN } = requireEnv(
  'HADOLINT_BIN',
  'ACTIONLINT_BIN',
  'SHELLCHECK_BIN',
);

function filesIn(dir: string, pattern: RegExp): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir))
    .filter((file) => pattern.test(file))
    .sort()
    .map((file) => path.join(dir, file));
}

/** Runs a linter in the repository root; its JSON report, or a failure with its stderr. */
function report(command: string, args: string[]): unknown {
  const result = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8' });
  if (result.error) throw result.error;
  try {
    return JSON.parse(result.stdout);
  } catch {
    throw new Error(`${command} exited ${result.status}: ${result.stderr}${result.stdout}`);
  }
}

/** Every `*.sh` under `dir`, as tools/lint-extra.sh finds them (node_modules left out). */
function shellScriptsIn(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.sh') && !file.split(path.sep).includes('node_modules'))
    .map((file) => path.join(dir, file));
}

const dockerfiles = filesIn('images', /\.Dockerfile$/);
const workflows = filesIn('.github/workflows', /\.ya?ml$/);
// All at once, as `make lint` does: shellcheck follows a `source` only among its inputs.
const scripts = [...shellScriptsIn('tools'), ...shellScriptsIn('images')].sort();

test('hadolint finds nothing in the Dockerfiles', () => {
  expect(dockerfiles.length).toBeGreaterThan(0);
  expect(report(HADOLINT_BIN, ['--format', 'json', ...dockerfiles])).toEqual([]);
});

test('actionlint finds nothing in the workflows, shellcheck on their scripts included', () => {
  expect(workflows).toContain('.github/workflows/e2e-kind.yml');
  const args = ['-shellcheck', SHELLCHECK_BIN, '-format', '{{json .}}', ...workflows];
  expect(report(ACTIONLINT_BIN, args)).toEqual([]);
});

test('the shell scripts parse and shellcheck finds nothing in them', () => {
  expect(scripts).toEqual(expect.arrayContaining(['images/build.sh', 'tools/e2e/run.sh']));
  for (const script of scripts) {
    const syntax = spawnSync('bash', ['-n', script], { cwd: ROOT, encoding: 'utf8' });
    expect({ script, status: syntax.status, stderr: syntax.stderr }).toEqual({
      script,
      status: 0,
      stderr: '',
    });
  }
  expect(report(SHELLCHECK_BIN, ['--format=json1', ...scripts])).toEqual({ comments: [] });
});
