import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BadArchiveError, zipEntries } from '../../src/engines/zip-entries';

const run = promisify(execFile);

describe('zipEntries', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zip-entries-'));
    await writeFile(join(dir, 'full.md'), '# Title\n\nSome text, repeated. '.repeat(50));
    await writeFile(
      join(dir, 'abc_content_list.json'),
      JSON.stringify([{ type: 'text', text: 'é ok', page_idx: 0 }]),
    );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  // Archives made by Info-ZIP's `zip`, stored (-0) and deflated (-9), with a folder entry.
  const archive = async (level: string) => {
    const file = join(dir, `a${level}.zip`);
    await run('zip', ['-q', level, '-r', file, 'full.md', 'abc_content_list.json'], { cwd: dir });
    await run('zip', ['-q', file, '-r', '.', '-i', 'nothing'], { cwd: dir }).catch(() => undefined);
    return readFile(file);
  };

  it.each(['-0', '-9'])('reads every file of an archive written with zip %s', async (level) => {
    const files = zipEntries(await archive(level));
    expect([...files.keys()].sort()).toEqual(['abc_content_list.json', 'full.md']);
    expect(files.get('full.md')?.toString()).toBe(await readFile(join(dir, 'full.md'), 'utf8'));
    expect(JSON.parse(files.get('abc_content_list.json')?.toString() ?? '')).toEqual([
      { type: 'text', text: 'é ok', page_idx: 0 },
    ]);
  });

  it('refuses what is not a whole archive', async () => {
    const whole = await archive('-9');
    expect(() => zipEntries(Buffer.from('not a zip at all'))).toThrow(BadArchiveError);
    expect(() => zipEntries(whole.subarray(0, Math.floor(whole.length / 2)))).toThrow(
      BadArchiveError,
    );
  });
});
