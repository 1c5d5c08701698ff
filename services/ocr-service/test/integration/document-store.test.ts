/**
 * The document store against a real MinIO: staged uploads round-trip; the PDF's link is served:
 * a presigned one to anyone holding it until it expires (tampered or expired: 403), a public one
 * (public documents) to anyone, while staged uploads stay private.
 */
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
  const settings = {
    S3_ENDPOINT,
    S3_REGION,
    S3_ACCESS_KEY,
    S3_SECRET_KEY,
    S3_BUCKET: bucket,
    S3_FORCE_PATH_STYLE: true,
  };
  const store = createDocumentStore(settings);
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

  it("stores a task's PDF as ocr-documents/{task_id}.pdf behind a presigned link MinIO serves", async () => {
    await writeFile(join(dir, 'doc.pdf'), '%PDF-1.7 tiny');
    await store.putFile(documentPdfKey('task-2'), join(dir, 'doc.pdf'), 'application/pdf');
    const url = store.outputUrl(documentPdfKey('task-2'));
    expect(url.startsWith(`${S3_ENDPOINT}/${bucket}/ocr-documents/task-2.pdf?X-Amz-`)).toBe(true);
    expect(url).not.toContain(S3_SECRET_KEY);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('%PDF-1.7 tiny');

    // The bucket is private: the plain URL is refused, so is a tampered link.
    expect((await fetch(`${S3_ENDPOINT}/${bucket}/ocr-documents/task-2.pdf`)).status).toBe(403);
    const tampered = url.replace(
      /X-Amz-Signature=(.)/,
      (_all, first: string) => `X-Amz-Signature=${first === 'a' ? 'b' : 'a'}`,
    );
    expect((await fetch(tampered)).status).toBe(403);
    // Another object under the same signature: refused.
    expect((await fetch(url.replace('task-2.pdf', 'task-3.pdf'))).status).toBe(403);
  });

  it('refuses a presigned link once OUTPUT_URL_TTL_SECONDS have passed', async () => {
    const shortLived = createDocumentStore({ ...settings, OUTPUT_URL_TTL_SECONDS: 2 });
    await writeFile(join(dir, 'short.pdf'), '%PDF-1.7 short');
    await shortLived.putFile(documentPdfKey('short'), join(dir, 'short.pdf'), 'application/pdf');
    expect((await fetch(shortLived.outputUrl(documentPdfKey('short')))).status).toBe(200);
    const signedEarlier = shortLived.outputUrl(
      documentPdfKey('short'),
      new Date(Date.now() - 60_000),
    );
    expect((await fetch(signedEarlier)).status).toBe(403);
    shortLived.close();
  });

  it('serves public documents to anyone once the install chooses them, and nothing else', async () => {
    const publicBucket = `${bucket}-public`;
    const open = createDocumentStore({
      ...settings,
      S3_BUCKET: publicBucket,
      OUTPUT_PDF_ACCESS: 'public',
    });
    await open.ensureBucket();
    await open.ensureOutputAccess();
    await open.ensureOutputAccess(); // idempotent: the statement is replaced, not repeated
    await writeFile(join(dir, 'open.pdf'), '%PDF-1.7 open');
    await open.putFile(documentPdfKey('open'), join(dir, 'open.pdf'), 'application/pdf');
    await open.putFile(stagedUploadKey('open', 0), join(dir, 'open.pdf'), 'application/pdf');
    const url = open.outputUrl(documentPdfKey('open'));
    expect(url).toBe(`${S3_ENDPOINT}/${publicBucket}/ocr-documents/open.pdf`);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('%PDF-1.7 open');
    expect((await fetch(`${S3_ENDPOINT}/${publicBucket}/ocr-uploads/open/0`)).status).toBe(403);
    open.close();
  });

  it('builds links on a configured base (a CDN), encoding the key', () => {
    const behindCdn = createDocumentStore({
      S3_ENDPOINT,
      S3_REGION,
      S3_BUCKET: bucket,
      S3_FORCE_PATH_STYLE: true,
      S3_PUBLIC_URL: 'https://cdn.example.com/docs/',
      OUTPUT_PDF_ACCESS: 'public',
    });
    expect(behindCdn.outputUrl(documentPdfKey('a b'))).toBe(
      'https://cdn.example.com/docs/ocr-documents/a%20b.pdf',
    );
    behindCdn.close();
  });
});
