import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { withLock } from '../../src/cli/lock';
import { pidRecord, readLivePid, runChecked } from '../../src/cli/proc';

describe('pid files', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'testenv-unit-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('see a live process, and not once it exited', async () => {
    const child = spawn('sleep', ['30']);
    const file = path.join(dir, 'x.pid');
    fs.writeFileSync(file, pidRecord(child.pid!));
    expect(readLivePid(file)).toBe(child.pid);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill();
    await exited;
    expect(readLivePid(file)).toBeUndefined();
  });

  it('treat a reused pid (same pid, other start time) as stale', () => {
    const file = path.join(dir, 'x.pid');
    fs.writeFileSync(file, `${process.pid} 1\n`);
    expect(readLivePid(file)).toBeUndefined();
    fs.writeFileSync(file, pidRecord(process.pid));
    expect(readLivePid(file)).toBe(process.pid);
  });
});

describe('withLock', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'testenv-unit-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('takes over a stale lock and releases it afterwards', async () => {
    const file = path.join(dir, 'lock');
    fs.writeFileSync(file, `${process.pid} 1\n`);
    const onWait = jest.fn();
    await expect(withLock(file, onWait, () => Promise.resolve('ran'))).resolves.toBe('ran');
    expect(onWait).not.toHaveBeenCalled();
    expect(fs.existsSync(file)).toBe(false);
  });

  it('runs holders one after the other', async () => {
    const file = path.join(dir, 'lock');
    const events: string[] = [];
    const body = (name: string) => async () => {
      events.push(`${name} in`);
      await sleep(50);
      events.push(`${name} out`);
    };
    const onWait = jest.fn();
    await Promise.all([withLock(file, onWait, body('a')), withLock(file, onWait, body('b'))]);
    expect(events).toEqual(['a in', 'a out', 'b in', 'b out']);
    expect(onWait).toHaveBeenCalledWith(process.pid);
  });
});

describe('runChecked', () => {
  it('reports the command and the end of its output on failure', async () => {
    await expect(runChecked('sh', ['-c', 'echo boom >&2; exit 3'])).rejects.toThrow(
      /sh -c .* failed \(exit 3\):\s+boom/,
    );
  });
});
