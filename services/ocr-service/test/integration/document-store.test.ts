/** The document store against a real MinIO: staged uploads round-trip, the PDF's public URL serves it. */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireEnv } from '@pelita/testenv';
import {
  createDocumentStore,
  documentPdfKey,
  stagedUploadKey,
} from '../../src/storage/document-store';

const { S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY, S3_REGION } = requireEnv(
  'S3_ENDPOINT',
  'S3_ACCESS_KEY',
  'S3_SECRET_KEY',
  'S3_REGION',
);

describe('document store', () => {
  const bucket = `ocr-test-${randomBytes(4).toString('hex')}`;
  const store = createDocumentStore({
    S3_ENDPOINT,
    S3_REGION,
    S3_ACCESS_KEY,
    S3_SECRET_KEY,
    S3_BUCKET: bucket,
    S3_FORCE_PATH_STYLE: true,
  });
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'document-store-'));
    await store.ensureBucket();
    await store.ensureBucket(); // idempotent
  });
  afterAll(async () => {
    store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('stages an upload for the workers and reads it back byte for byte', async () => {
    const bytes = randomBytes(256 * 1024);
    await writeFile(join(dir, 'in.bin'), bytes);
    await store.putFile(
      stagedUploadKey('task-1', 0),
      join(dir, 'in.bin'),
      'application/octet-stream',
    );
    await store.getFile(stagedUploadKey('task-1', 0), join(dir, 'out.bin'));
    expect((await readFile(join(dir, 'out.bin'))).equals(bytes)).toBe(true);
    await store.remove(stagedUploadKey('task-1', 0));
    await expect(
      store.getFile(stagedUploadKey('task-1', 0), join(dir, 'gone.bin')),
    ).rejects.toThrow();
  });

  it("stores a task's PDF as ocr-documents/{task_id}.pdf under its public URL", async () => {
    await writeFile(join(dir, 'doc.pdf'), '%PDF-1.7 tiny');
    await store.putFile(documentPdfKey('task-2'), join(dir, 'doc.pdf'), 'application/pdf');
    const url = store.publicUrl(documentPdfKey('task-2'));
    expect(url).toBe(`${S3_ENDPOINT}/${bucket}/ocr-documents/task-2.pdf`);
    // The bucket is private here: the URL names the object; with credentials it is that object.
    const local = join(dir, 'back.pdf');
    await store.getFile(documentPdfKey('task-2'), local);
    expect(await readFile(local, 'utf8')).toBe('%PDF-1.7 tiny');
  });

  it('builds public URLs on a configured base (a CDN), encoding the key', () => {
    const behindCdn = createDocumentStore({
      S3_ENDPOINT,
      S3_REGION,
      S3_BUCKET: bucket,
      S3_FORCE_PATH_STYLE: true,
      S3_PUBLIC_URL: 'https://cdn.example.com/docs/',
    });
    expect(behindCdn.publicUrl(documentPdfKey('a b'))).toBe(
      'https://cdn.example.com/docs/ocr-documents/a%20b.pdf',
    );
    behindCdn.close();
  });
});
