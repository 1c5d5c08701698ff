/**
 * `runService`, the process shape of every service, as a real process (compiled kit, `make build`
 * first): it listens before its start-up work, `/ready` says so until the work ends, a failed
 * start exits 1 without leaking credentials, and SIGTERM during start-up is a clean stop.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const FIXTURE = join(__dirname, '..', 'fixtures', 'run-service.js');

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, [FIXTURE], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  const seen: Array<() => void> = [];
  createInterface({ input: child.stdout }).on('line', (text) => {
    lines.push(JSON.parse(text) as Record<string, unknown>);
    for (const wake of seen.splice(0)) wake();
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  /** Resolves with the first log line whose message is `msg`; rejects if the process exits first. */
  const logged = async (msg: string) => {
    for (;;) {
      const line = lines.find((entry) => entry.msg === msg);
      if (line) return line;
      const next = new Promise<void>((resolve) => seen.push(resolve));
      const code = await Promise.race([next.then(() => undefined), exited]);
      if (code !== undefined) throw new Error(`exited (${code}) before "${msg}": ${stderr}`);
    }
  };
  return { child, lines, logged, exited, stderr: () => stderr };
}

describe('runService', () => {
  it('listens first: /health answers and /ready is 503 "starting" until the start-up work ends', async () => {
    const proc = run({ START: 'wait' });
    try {
      const url = `http://127.0.0.1:${String((await proc.logged('listening')).port)}`;
      await proc.logged('start-up work begins');
      expect((await fetch(`${url}/health`)).status).toBe(200);
      const starting = await fetch(`${url}/ready`);
      expect(starting.status).toBe(503);
      expect(await starting.json()).toEqual({
        status: 'not_ready',
        checks: { startup: { status: 'down', error: 'starting' } },
      });

      expect((await fetch(`${url}/release`, { method: 'POST' })).status).toBe(200);
      await proc.logged('started');
      const ready = await fetch(`${url}/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready', checks: {} });
    } finally {
      proc.child.kill('SIGTERM');
    }
    expect(await proc.exited).toBe(0);
    expect(proc.lines.map((line) => line.msg)).toContain('service stopped');
  });

  it('exits 1 when the start-up work fails, naming the error without its credential', async () => {
    const proc = run({ START: 'fail' });
    expect(await proc.exited).toBe(1);
    expect(proc.stderr()).toContain('run-service-fixture failed to start: migration failed on');
    expect(proc.stderr()).not.toContain('hunter2');
    // The port was closed and the service's closers ran before the exit.
    expect(proc.lines.map((line) => line.msg)).toEqual(
      expect.arrayContaining(['listening', 'service stopped', 'stopped']),
    );
    expect(proc.lines.map((line) => line.msg)).not.toContain('started');
  });

  it('stops cleanly (exit 0, closers run) on SIGTERM during the start-up work', async () => {
    const proc = run({ START: 'wait' });
    await proc.logged('start-up work begins');
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    expect(proc.lines.map((line) => line.msg)).toEqual(
      expect.arrayContaining(['shutting down', 'service stopped', 'stopped']),
    );
  });

  it('exits 1 on bad settings, naming the setting but not its value', async () => {
    const proc = run({ START: 'sometimes', DATABASE_URL: 'postgres://app:hunter2@db/app' });
    expect(await proc.exited).toBe(1);
    expect(proc.stderr()).toMatch(/run-service-fixture failed to start: Invalid settings: START/);
    expect(proc.stderr()).not.toContain('hunter2');
    expect(proc.lines).toEqual([]);
  });
});
