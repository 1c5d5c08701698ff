/** The ZIP writer, checked by the `unzip` CLI: what goes in comes out, byte for byte. */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipArchive, type ZipEntry } from '../../src/zip-writer';

const ENTRIES: ZipEntry[] = [
  {
    name: 'full.md',
    data: Buffer.from('# Title\n\nSome words, repeated words, repeated words.\n'),
  },
  { name: 'images/pixel.bin', data: Buffer.from([0, 1, 2, 255, 254, 0]) },
  { name: 'empty.txt', data: Buffer.alloc(0) },
  { name: 'dokumen_ringkasan_é.json', data: Buffer.from('{"kata":"ünïcödé"}') },
  { name: 'big.txt', data: Buffer.from('lorem ipsum '.repeat(20_000)) },
];

describe('zipArchive', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'zip-writer-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, zip: Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, zip);
    return path;
  };

  it.each(['deflate', 'store'] as const)(
    'writes an archive unzip tests clean and extracts byte for byte (%s)',
    (method) => {
      const path = write(`${method}.zip`, zipArchive(ENTRIES, method));
      expect(spawnSync('unzip', ['-tq', path]).status).toBe(0);
      const listing = execFileSync('unzip', ['-Z1', path], { encoding: 'utf8' });
      expect(listing.trim().split('\n')).toEqual(ENTRIES.map((entry) => entry.name));
      for (const entry of ENTRIES) {
        expect(execFileSync('unzip', ['-p', path, entry.name])).toEqual(entry.data);
      }
    },
  );

  it('deflates: the repetitive entry takes far less room than stored', () => {
    const deflated = zipArchive(ENTRIES, 'deflate');
    const stored = zipArchive(ENTRIES, 'store');
    expect(deflated.length).toBeLessThan(stored.length / 10);
  });

  it('gives the same bytes for the same entries (fixed timestamps)', () => {
    expect(zipArchive(ENTRIES)).toEqual(zipArchive(ENTRIES));
  });

  it('writes an empty archive unzip accepts', () => {
    const path = write('empty.zip', zipArchive([]));
    // unzip reports "zipfile is empty" with status 1 but no error (status 9 would mean not a zip).
    expect(spawnSync('unzip', ['-l', path]).status).not.toBe(9);
    expect(zipArchive([]).length).toBe(22);
  });
});
