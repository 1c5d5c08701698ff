import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UploadedFile } from '@pelita/kit';
import { nameOfUrl, uploadInput } from '../../../src/api/task-inputs';

describe('nameOfUrl', () => {
  it.each([
    ['https://x.example/files/report.pdf', 'report.pdf'],
    ['https://x.example/files/q3%20summary.pdf?sig=abc#p2', 'q3 summary.pdf'],
    ['https://x.example/download', 'download'],
    ['https://x.example/', 'document.pdf'],
    ['https://x.example', 'document.pdf'],
    ['https://x.example/dir/', 'document.pdf'],
    ['https://x.example/bad%E0%A4%A.pdf', 'bad%E0%A4%A.pdf'],
  ])('%s → %s', (url, name) => {
    expect(nameOfUrl(url)).toBe(name);
  });
});

describe('uploadInput', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'task-inputs-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const upload = async (name: string, bytes: string | Buffer) => {
    const path = join(dir, `f-${Math.random().toString(36).slice(2)}`);
    await writeFile(path, bytes);
    return new UploadedFile(path, name, Buffer.byteLength(bytes));
  };

  it('keeps the file name without the client path, with the content type of what it is', async () => {
    const file = await upload('C:\\scans\\Report 1.pdf', '%PDF-1.7\n...');
    expect(await uploadInput(file)).toEqual({
      kind: 'upload',
      path: file.path,
      name: 'Report 1.pdf',
      contentType: 'application/pdf',
    });
    const office = await uploadInput(await upload('a/b/sheet.xlsx', 'PK\x03\x04'));
    expect(office).toMatchObject({ name: 'sheet.xlsx', contentType: 'application/octet-stream' });
  });

  it('gives a name without an extension the one its bytes say (the worker goes by it)', async () => {
    expect(await uploadInput(await upload('scan', '%PDF-1.4'))).toMatchObject({ name: 'scan.pdf' });
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(await uploadInput(await upload('photo', png))).toMatchObject({
      name: 'photo.png',
      contentType: 'image/png',
    });
  });

  it.each([
    ['empty.pdf', '', 400, 'empty_file'],
    ['notes.txt', 'hello', 415, 'unsupported_file_type'],
    ['fake.pdf', 'hello', 415, 'unsupported_file_type'],
    ['fake.gif', 'hello', 415, 'unsupported_file_type'],
    ['noextension', 'hello', 415, 'unsupported_file_type'],
  ])('refuses %s', async (name, bytes, status, code) => {
    await expect(uploadInput(await upload(name, bytes))).rejects.toMatchObject({ status, code });
  });
});
