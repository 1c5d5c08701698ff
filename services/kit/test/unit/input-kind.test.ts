import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inputKind, UnsupportedInputError } from '../../src/input-kind';

describe('inputKind', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'input-kind-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const kindOf = async (bytes: number[] | string, name: string) => {
    const path = join(dir, 'f');
    await writeFile(path, typeof bytes === 'string' ? bytes : Buffer.from(bytes));
    return inputKind(path, name);
  };

  it('trusts the bytes for PDF, PNG and JPEG whatever the name says', async () => {
    expect(await kindOf('%PDF-1.7 ...', 'scan.docx')).toBe('pdf');
    expect(await kindOf([0x89, 0x50, 0x4e, 0x47, 0x0d], 'x.bin')).toBe('png');
    expect(await kindOf([0xff, 0xd8, 0xff, 0xe0], 'photo.jpeg')).toBe('jpeg');
  });

  it('accepts the other image types only with their signature', async () => {
    expect(await kindOf('GIF89a....', 'a.gif')).toBe('image');
    expect(await kindOf('RIFF\u0000\u0000\u0000\u0000WEBPVP8 ', 'a.webp')).toBe('image');
    await expect(kindOf('not a gif', 'a.gif')).rejects.toThrow(UnsupportedInputError);
  });

  it('takes office files by their extension, and refuses anything else', async () => {
    expect(await kindOf('PK\u0003\u0004', 'report.DOCX')).toBe('office');
    expect(await kindOf('a,b\n1,2', 'table.csv')).toBe('office');
    await expect(kindOf('text', 'notes.txt')).rejects.toThrow(/Unsupported file type: notes.txt/);
    await expect(kindOf('text', 'fake.pdf')).rejects.toThrow(/not a PDF/);
    await expect(kindOf('', 'empty.docx')).rejects.toThrow(/empty/);
  });
});
