/** Starts a server process for a benchmark and waits until it says which port it listens on. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

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
  const child = spawn(process.execPath, [script, ...args], {
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
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before listening`)));
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
