/** A real OPA of the test's own (`OPA_BIN`), loaded with the repository's policies/ (without their tests). */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { requireEnv } from '@pelita/testenv';
import { waitFor } from './wait';

const POLICIES_DIR = join(__dirname, '..', '..', '..', '..', '..', 'policies');

export interface OpaProcess {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface OpaOptions {
  /** Loaded at start like the sidecar loads the shared volume (`data.json` at the root of data). */
  dataDir?: string;
  port?: number;
}

export async function startOpa(options: OpaOptions = {}): Promise<OpaProcess> {
  const { OPA_BIN } = requireEnv('OPA_BIN');
  const port = options.port ?? (await freePort());
  const child: ChildProcess = spawn(
    OPA_BIN,
    [
      'run',
      '--server',
      '--skip-version-check',
      '--log-level=error',
      '--ignore=*_test.rego',
      '--ignore=.*',
      `--addr=127.0.0.1:${port}`,
      ...(options.dataDir ? [options.dataDir] : []),
      POLICIES_DIR,
    ],
    { stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  };
  try {
    await waitFor(
      async () => (await fetch(`${url}/health`).catch(() => undefined))?.ok === true,
      'OPA',
      15_000,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, port, stop };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
