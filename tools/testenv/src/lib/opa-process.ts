/** A real OPA server of the test's own (`opa run --server`), started from `OPA_BIN`. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './free-port';
import { requireEnv } from './require-env';
import { stopChild } from './stop-child';
import { waitFor } from './wait-for';

/** The repository's `policies/` (the same depth from src/lib/ and dist/lib/). */
export const POLICIES_DIR = join(__dirname, '..', '..', '..', '..', 'policies');

export interface DecisionInput {
  user: string;
  method: string;
  path: string;
}

export interface OpaProcess {
  url: string;
  port: number;
  /** Asks `data.pelita.authz.allow` for one request. */
  allows(input: DecisionInput): Promise<boolean>;
  /** The base documents in `data` (`GET /v1/data` without the policies' virtual `pelita`). */
  data(): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/**
 * Starts OPA on `port` (a free one when omitted) loading `paths` (policy directories, data
 * files), and waits until it answers its health check.
 */
export async function startOpa(paths: string[], port?: number): Promise<OpaProcess> {
  const { OPA_BIN } = requireEnv('OPA_BIN');
  const chosen = port ?? (await freePort());
  const child = spawn(
    OPA_BIN,
    [
      'run',
      '--server',
      '--skip-version-check',
      '--log-level=error',
      // As deployed: the policies without their tests, the shared directory without the
      // data file's hidden temporary siblings.
      '--ignore=*_test.rego',
      '--ignore=.*',
      `--addr=127.0.0.1:${chosen}`,
      ...paths,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const url = `http://127.0.0.1:${chosen}`;
  const healthy = async () => (await fetch(`${url}/health`).catch(() => undefined))?.ok === true;
  const state = await waitFor(
    async () => (child.exitCode === null ? (await healthy()) && 'ready' : 'exited'),
    { timeoutMs: 15_000, what: `OPA on ${url}` },
  ).catch(async (err: unknown) => {
    await stopChild(child);
    throw err;
  });
  if (state === 'exited') throw new Error(`opa exited (${child.exitCode}): ${stderr}`);
  return {
    url,
    port: chosen,
    async allows(input) {
      const res = await fetch(`${url}/v1/data/pelita/authz/allow`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input }),
      });
      if (!res.ok) throw new Error(`OPA decision answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { result?: unknown }).result === true;
    },
    async data() {
      const res = await fetch(`${url}/v1/data`);
      const { pelita: _policies, ...base } = (
        (await res.json()) as { result: Record<string, unknown> }
      ).result;
      return base;
    },
    stop: () => stopChild(child),
  };
}
