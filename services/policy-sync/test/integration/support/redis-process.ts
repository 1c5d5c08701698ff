/**
 * A Redis server of the test's own (`redis-server` from PATH, installed by `make testenv`), for
 * tests that take Redis away; the shared one of the test environment must stay up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { stopChild, waitFor } from '@pelita/testenv';

export interface RedisProcess {
  url: string;
  stop(): Promise<void>;
}

export async function startRedis(port: number): Promise<RedisProcess> {
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const failed = new Promise<never>((_, reject) =>
    child.once('error', (err) => reject(new Error(`cannot start redis-server: ${err.message}`))),
  );
  await Promise.race([
    failed,
    waitFor(() => accepts(port), { timeoutMs: 10_000, what: `redis-server on ${port}` }),
  ]);
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () => stopChild(child),
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
