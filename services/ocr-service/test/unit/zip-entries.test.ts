import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  ArchiveTooLargeError,
  BadArchiveError,
  zipEntries,
  type ZipLimits,
} from '../../src/engines/zip-entries';

const run = promisify(execFile);
const ROOMY: ZipLimits = { maxEntries: 100, maxInflatedBytes: 1024 * 1024 };

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
    const files = zipEntries(await archive(level), ROOMY);
    expect([...files.keys()].sort()).toEqual(['abc_content_list.json', 'full.md']);
    expect(files.get('full.md')?.toString()).toBe(await readFile(join(dir, 'full.md'), 'utf8'));
    expect(JSON.parse(files.get('abc_content_list.json')?.toString() ?? '')).toEqual([
      { type: 'text', text: 'é ok', page_idx: 0 },
    ]);
  });

  it('refuses what is not a whole archive', async () => {
    const whole = await archive('-9');
    expect(() => zipEntries(Buffer.from('not a zip at all'), ROOMY)).toThrow(BadArchiveError);
    expect(() => zipEntries(whole.subarray(0, Math.floor(whole.length / 2)), ROOMY)).toThrow(
      BadArchiveError,
    );
  });

  describe('limits', () => {
    // 8 MiB of zeros deflate to 8 kB: a small zip bomb, made by Info-ZIP's `zip`.
    let bomb: Buffer;
    beforeAll(async () => {
      await writeFile(join(dir, 'zeros_content_list.json'), Buffer.alloc(8 * 1024 * 1024));
      await run('zip', ['-q', '-9', join(dir, 'bomb.zip'), 'zeros_content_list.json', 'full.md'], {
        cwd: dir,
      });
      bomb = await readFile(join(dir, 'bomb.zip'));
    });
    const limits = (maxInflatedBytes: number, maxEntries = 10): ZipLimits => ({
      maxEntries,
      maxInflatedBytes,
    });

    it('refuses files that inflate to more than maxInflatedBytes in all', () => {
      expect(bomb.length).toBeLessThan(64 * 1024);
      expect(() => zipEntries(bomb, limits(1024 * 1024))).toThrow(
        new ArchiveTooLargeError('its files inflate to more than 1048576 bytes'),
      );
      // The limit is on the files together: each fits, both do not.
      const size = 8 * 1024 * 1024 + 1500;
      expect(() => zipEntries(bomb, limits(8 * 1024 * 1024 + 10))).toThrow(ArchiveTooLargeError);
      expect(zipEntries(bomb, limits(size)).get('zeros_content_list.json')).toHaveLength(
        8 * 1024 * 1024,
      );
    });

    it('stops inflating at the limit when the archive understates a file size', () => {
      // Every size field of the archive says 0 bytes: only the inflation itself can tell.
      const lying = Buffer.from(bomb);
      for (let at = 0; at + 4 <= lying.length; at += 1) {
        if (lying.readUInt32LE(at) === 0x02014b50) lying.writeUInt32LE(0, at + 24);
        if (lying.readUInt32LE(at) === 0x04034b50) lying.writeUInt32LE(0, at + 22);
      }
      expect(() => zipEntries(lying, limits(1024 * 1024))).toThrow(
        new ArchiveTooLargeError('its files inflate to more than 1048576 bytes'),
      );
    });

    it('refuses an archive of more than maxEntries entries', () => {
      expect(() => zipEntries(bomb, limits(Infinity, 1))).toThrow(
        new ArchiveTooLargeError('2 entries, more than 1'),
      );
    });

    it('neither inflates nor counts the files it is not asked for', () => {
      const files = zipEntries(bomb, {
        ...limits(64 * 1024),
        wanted: (name) => name.endsWith('.md'),
      });
      expect([...files.keys()]).toEqual(['full.md']);
    });
  });
});
