import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTool, ToolError } from '../../src/run-tool';

describe('runTool', () => {
  it('answers standard output of a tool that succeeds', async () => {
    await expect(runTool('sh', ['-c', 'printf hello'], { timeoutMs: 5000 })).resolves.toBe('hello');
  });

  it('fails with the exit code and the end of standard error', async () => {
    await expect(
      runTool('sh', ['-c', 'echo broken page >&2; exit 3'], { timeoutMs: 5000 }),
    ).rejects.toThrow(/sh exited with 3: broken page/);
  });

  it('kills the whole process group at the time limit, children included', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'run-tool-'));
    try {
      // The tool starts a child that would outlive it and records the child's id.
      const pidFile = join(dir, 'pid');
      const error = await runTool('sh', ['-c', `sleep 30 & echo $! > ${pidFile}; wait`], {
        timeoutMs: 300,
      }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(ToolError);
      expect((error as Error).message).toMatch(/timed out after 300 ms/);
      expect((error as ToolError).failure).toBe('timeout');
      // Gone, or a zombie waiting for whoever inherited it to reap it: not running either way.
      const child = Number(await readFile(pidFile, 'utf8'));
      const state = await readFile(`/proc/${child}/stat`, 'utf8').then(
        (stat) => stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3),
        () => 'gone',
      );
      expect(['gone', 'Z', 'X']).toContain(state);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('stops when its signal aborts', async () => {
    const abort = new AbortController();
    const run = runTool('sleep', ['30'], { timeoutMs: 60_000, signal: abort.signal });
    abort.abort();
    await expect(run).rejects.toThrow(/cancelled/);
  });

  it('refuses output beyond the cap', async () => {
    await expect(
      runTool('sh', ['-c', 'head -c 5000 /dev/zero'], { timeoutMs: 5000, maxOutputBytes: 1000 }),
    ).rejects.toThrow(/printed more than 1000 bytes/);
  });
});
