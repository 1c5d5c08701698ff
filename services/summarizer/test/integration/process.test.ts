/**
 * The built entry (`npx tsc -b` first): `node services/summarizer/dist/main.js` reads its
 * settings, listens on PORT, runs the start-up probe (only logged), and stops on SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { waitFor } from '@pelita/testenv';

const ENTRY = join(__dirname, '..', '..', 'dist', 'main.js');

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, [ENTRY], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, any>> = [];
  let stderr = '';
  child.stderr?.on('data', (data: Buffer) => (stderr += data.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      lines.push(JSON.parse(line) as Record<string, any>);
    } catch {
      // not a log line
    }
  });
  const until = async (check: () => boolean) => {
    const seen = await waitFor(
      () => check() || (child.exitCode !== null && 'exited'),
      'a log line',
    ).catch(() => 'timed out');
    if (seen !== true) throw new Error(`gave up waiting (exit ${child.exitCode}): ${stderr}`);
  };
  return { child, lines, until, stderr: () => stderr };
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}

describe('the summarizer process', () => {
  let stub: LlmStub;
  beforeAll(async () => {
    stub = await startLlmStub({ maxModelLen: 16_384 });
  });
  afterAll(() => stub.close());

  it('listens, warns about the chunk size at start-up, serves, and stops on SIGTERM', async () => {
    const proc = run({ BASE_URL_LOCAL: stub.url, MODEL_LOCAL: 'pelita-stub' });
    try {
      await proc.until(() => proc.lines.some((line) => line.msg === 'listening'));
      await proc.until(() =>
        proc.lines.some((line) => String(line.msg).startsWith('start-up probe')),
      );
      const probe = proc.lines.find((line) => String(line.msg).startsWith('start-up probe'));
      expect(probe).toMatchObject({ level: 'warn', advisedChunkSize: 7021 });
      const port = proc.lines.find((line) => line.msg === 'listening')?.port as number;
      const health = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as any;
      expect(health.upstream.reachable).toBe(true);
    } finally {
      expect(await stop(proc.child)).toBe(0);
    }
  });

  it('starts although the model server is down (the probe only logs)', async () => {
    const proc = run({ BASE_URL_LOCAL: 'http://127.0.0.1:1/v1', MODEL_LOCAL: 'm' });
    try {
      await proc.until(() =>
        proc.lines.some((line) => String(line.msg).includes('starting anyway')),
      );
      expect(proc.child.exitCode).toBeNull();
    } finally {
      expect(await stop(proc.child)).toBe(0);
    }
  });

  it('refuses to start without its required settings, naming them', async () => {
    const proc = run({ BASE_URL_LOCAL: '', MODEL_LOCAL: '' });
    const code = await new Promise((resolve) => proc.child.once('exit', resolve));
    expect(code).toBe(1);
    expect(proc.stderr()).toMatch(/BASE_URL_LOCAL: .*MODEL_LOCAL: /);
  });
});
