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
  stop(): Promise<void>;
}

export async function startOpa(): Promise<OpaProcess> {
  const { OPA_BIN } = requireEnv('OPA_BIN');
  const port = await freePort();
  const child: ChildProcess = spawn(
    OPA_BIN,
    [
      'run',
      '--server',
      '--skip-version-check',
      '--log-level=error',
      '--ignore=*_test.rego',
      `--addr=127.0.0.1:${port}`,
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
  return { url, stop };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
