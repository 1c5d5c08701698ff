/** The result archive's entries, what `unzip` makes of it, and the `bad-zip` damage. */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sniffFileKind } from '../../src/file-kind';
import { buildArchive, imagePath, type ArchiveInput } from '../../src/result-archive';
import { documentFromImage, documentFromPages } from '../../src/result-content';

const PDF_INPUT: ArchiveInput = {
  zipId: 'zip-1',
  document: documentFromPages([
    {
      index: 0,
      width: 100,
      height: 100,
      blocks: [{ text: 'Kata pertama', box: [0, 0, 50, 10], lineHeight: 10 }],
    },
  ]),
  original: { bytes: Buffer.from('%PDF-1.7 stand-in'), kind: 'pdf', extension: 'pdf' },
};

describe('buildArchive', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'result-archive-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const save = (name: string, zip: Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, zip);
    return path;
  };

  it('holds full.md, the content list, layout.json and the original PDF', () => {
    const path = save('pdf.zip', buildArchive(PDF_INPUT, 'deflate'));
    expect(execFileSync('unzip', ['-Z1', path], { encoding: 'utf8' }).trim().split('\n')).toEqual([
      'full.md',
      'zip-1_content_list.json',
      'layout.json',
      'zip-1_origin.pdf',
    ]);
    expect(execFileSync('unzip', ['-p', path, 'full.md'], { encoding: 'utf8' })).toBe(
      'Kata pertama\n',
    );
    const list = JSON.parse(
      execFileSync('unzip', ['-p', path, 'zip-1_content_list.json'], { encoding: 'utf8' }),
    );
    expect(list).toEqual([
      { type: 'text', text: 'Kata pertama', page_idx: 0, bbox: [0, 0, 500, 100] },
    ]);
    expect(execFileSync('unzip', ['-p', path, 'zip-1_origin.pdf'])).toEqual(
      PDF_INPUT.original.bytes,
    );
  });

  it('keeps an image input under images/, named by its hash as full.md links it', () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    const image = imagePath(bytes, 'png');
    const path = save(
      'image.zip',
      buildArchive(
        {
          zipId: 'zip-2',
          document: documentFromImage(image),
          original: { bytes, kind: 'image', extension: 'png' },
        },
        'store',
      ),
    );
    expect(image).toMatch(/^images\/[0-9a-f]{64}\.png$/);
    expect(execFileSync('unzip', ['-p', path, image])).toEqual(bytes);
    expect(execFileSync('unzip', ['-p', path, 'full.md'], { encoding: 'utf8' })).toBe(
      `![](${image})\n`,
    );
  });

  it.each(['truncated', 'not-zip'] as const)('breaks the archive on demand (%s)', (mode) => {
    const path = save(`${mode}.zip`, buildArchive(PDF_INPUT, 'deflate', mode));
    expect(spawnSync('unzip', ['-tq', path]).status).not.toBe(0);
  });
});

describe('sniffFileKind', () => {
  it('tells files apart by their first bytes, not their names', () => {
    expect(sniffFileKind(Buffer.alloc(0))).toBe('empty');
    expect(sniffFileKind(Buffer.from('%PDF-1.4\n...'))).toBe('pdf');
    expect(sniffFileKind(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(
      'png',
    );
    expect(sniffFileKind(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('jpeg');
    expect(sniffFileKind(Buffer.from('PK\x03\x04word/document.xml', 'latin1'))).toBe('office');
    expect(sniffFileKind(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1]))).toBe('office');
    expect(sniffFileKind(Buffer.from('just some text'))).toBe('unknown');
  });
});
