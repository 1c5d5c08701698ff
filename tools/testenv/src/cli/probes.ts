// Readiness probes: each one really talks to the server; a timeout or refusal means "not ready".
import net from 'node:net';
import { run, type RunOptions } from './proc';

const PROBE_TIMEOUT_MS = 2_000;

export async function httpOk(url: string, accept?: (body: string) => boolean): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    const body = await response.text();
    return response.ok && (accept?.(body) ?? true);
  } catch {
    return false;
  }
}

/** Sends an inline PING (valid RESP for any Redis) and expects +PONG. */
export function redisPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

/** Runs a client command (e.g. a query through psql) and checks its exit code and output. */
export async function clientOk(
  command: string,
  args: string[],
  expectedStdout: string,
  options: RunOptions = {},
): Promise<boolean> {
  try {
    const result = await run(command, args, { timeoutMs: 5_000, ...options });
    return result.code === 0 && result.stdout.trim() === expectedStdout;
  } catch {
    return false;
  }
}
