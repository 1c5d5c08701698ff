/** The lint step that keeps `npm ci` working on every platform. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPT = join(__dirname, '..', '..', 'lock-check.mjs');

describe('lock-check', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lock-check-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const check = async (packages: Record<string, unknown>) => {
    const file = join(dir, `lock-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, JSON.stringify({ lockfileVersion: 3, packages }));
    return run(process.execPath, [SCRIPT, file]).then(
      ({ stdout }) => ({ code: 0, output: stdout }),
      (err: { code: number; stderr: string }) => ({ code: err.code, output: err.stderr }),
    );
  };

  const swc = (optional: string[]) => ({
    '': { devDependencies: { '@swc/core': '1.16.18' } },
    'node_modules/@swc/core': {
      version: '1.16.18',
      optionalDependencies: Object.fromEntries(optional.map((name) => [name, '1.16.18'])),
    },
  });

  it('passes when every optional package is recorded, at the top or nested', async () => {
    const result = await check({
      ...swc(['@swc/core-darwin-arm64', '@swc/core-linux-x64-gnu']),
      'node_modules/@swc/core-darwin-arm64': { version: '1.16.18', optional: true },
      'node_modules/@swc/core/node_modules/@swc/core-linux-x64-gnu': { version: '1.16.18' },
    });
    expect(result).toEqual({ code: 0, output: expect.stringContaining('every optional package') });
  });

  it("fails naming another platform's package the lock lost", async () => {
    const result = await check({
      ...swc(['@swc/core-darwin-arm64', '@swc/core-linux-x64-gnu']),
      'node_modules/@swc/core-linux-x64-gnu': { version: '1.16.18' },
    });
    expect(result.code).toBe(1);
    expect(result.output).toContain(
      '@swc/core-darwin-arm64 (optional dependency of node_modules/@swc/core)',
    );
    expect(result.output).not.toContain('linux-x64-gnu (');
  });

  it('passes on the repository lock file', async () => {
    await expect(run(process.execPath, [SCRIPT])).resolves.toMatchObject({
      stdout: expect.stringContaining('every optional package'),
    });
  });
});
