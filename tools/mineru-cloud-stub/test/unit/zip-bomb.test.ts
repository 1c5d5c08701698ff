/** The `zip-bomb` fault's archives are real: `unzip` tests them clean and lists what they claim. */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipBomb } from '../../src/zip-bomb';

describe('zipBomb', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'zip-bomb-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, zip: Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, zip);
    return path;
  };

  it('deep: a content list of the size asked for, valid JSON, in under a five-hundredth of that', () => {
    const size = 64 * 1024 * 1024 + 7;
    const zip = zipBomb('abc', { shape: 'deep', inflatedBytes: size });
    expect(zip.length).toBeLessThan(size / 500);
    const path = write('deep.zip', zip);
    expect(spawnSync('unzip', ['-tq', path]).status).toBe(0);
    expect(execFileSync('unzip', ['-l', path], { encoding: 'utf8' })).toMatch(
      new RegExp(`^\\s*${size}\\s.*abc_content_list\\.json$`, 'm'),
    );
    const text = execFileSync('unzip', ['-p', path], { maxBuffer: 2 * size, encoding: 'utf8' });
    expect(text).toHaveLength(size);
    expect(JSON.parse(text)).toEqual([]);
  });

  it('wide: as many entries as asked for, the content list among them', () => {
    const path = write('wide.zip', zipBomb('abc', { shape: 'wide', entries: 3000 }));
    expect(spawnSync('unzip', ['-tq', path]).status).toBe(0);
    const names = execFileSync('unzip', ['-Z1', path], { encoding: 'utf8' }).trim().split('\n');
    expect(names).toHaveLength(3000);
    expect(names[0]).toBe('abc_content_list.json');
  });
});
