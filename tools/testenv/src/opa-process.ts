/** A real OPA server of the test's own (`opa run --server`), started from `OPA_BIN`. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { requireEnv } from './require-env';
import { waitFor } from './wait-for';

/** The repository's `policies/` (the same depth from src/ and dist/). */
export const POLICIES_DIR = join(__dirname, '..', '..', '..', 'policies');

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
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`opa exited (${child.exitCode}): ${stderr}`);
        return (await fetch(`${url}/health`).catch(() => undefined))?.ok === true;
      },
      { timeoutMs: 15_000, what: `OPA on ${url}` },
    );
  } catch (err) {
    await stopChild(child);
    throw err;
  }
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

/** Kills a child started by a test helper (SIGKILL: nothing to flush) and waits for its exit. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
