/** Starts server processes for benchmarks and waits until they serve. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { freePort, waitFor } from '@pelita/testenv';

export interface StartedService {
  child: ChildProcess;
  url: string;
  stop: () => Promise<void>;
}

export interface StartOptions {
  args?: string[];
  env?: Record<string, string>;
  /** Path answered with 2xx once the process serves (default `/health`). */
  readyPath?: string;
  /** Port to use (when another process must know it beforehand); a free one otherwise. */
  port?: number;
}

/**
 * Runs `node script` with `PORT` set to `options.port` or a free port. Its output goes to /dev/null: a pipe read
 * by this process would slow the server down whenever the benchmark keeps this process busy.
 */
export async function startService(
  script: string,
  options: StartOptions = {},
): Promise<StartedService> {
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, [script, ...(options.args ?? [])], {
    env: { ...process.env, ...options.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const ready = async () => (await fetch(`${url}${options.readyPath ?? '/health'}`)).ok;
  const state = await waitFor(
    async () => (child.exitCode === null ? (await ready()) && 'ready' : 'exited'),
    { what: `${script} to answer (built? npx tsc -b)`, timeoutMs: 60_000, intervalMs: 100 },
  ).catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  });
  if (state === 'exited') throw new Error(`${script} exited with ${child.exitCode}`);
  return { child, url, stop };
}

export interface StartedProcess {
  child: ChildProcess;
  port: number;
  stop: () => Promise<void>;
}

/**
 * Runs `node script ...args`; resolves once a stdout line is JSON with a numeric `port`
 * (pino's `listening` line of a service, or a bench server's `{"port":N}`).
 */
export function startProcess(
  script: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<StartedProcess> {
  return startCommand(process.execPath, [script, ...args], env);
}

/** Like startProcess, for any executable (a Go binary built by a benchmark). */
export function startCommand(
  command: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<StartedProcess> {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}) before listening`)));
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      try {
        const parsed = JSON.parse(line) as { port?: unknown };
        if (typeof parsed.port !== 'number') return;
        // From here on the output is drained unread: parsing it would load the benchmark's CPU.
        lines.close();
        child.stdout.resume();
        resolve({ child, port: parsed.port, stop });
      } catch {
        // not a JSON line: ignore
      }
    });
  });
}
