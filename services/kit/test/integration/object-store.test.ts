// createObjectStore against the MinIO of `make testenv`: the bucket created once and checked,
// objects put and read back as buffers and as streamed files, removed; failures seen as such.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireEnv } from '@pelita/testenv';
import { createObjectStore, type ObjectStore } from '@pelita/kit/object-store';

const env = requireEnv('S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_REGION');
const settings = { ...env, S3_FORCE_PATH_STYLE: true };

describe('createObjectStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'object-store-'));
  const stores: ObjectStore[] = [];
  const storeOf = (bucket: string, overrides = {}) => {
    const store = createObjectStore({ ...settings, ...overrides }, bucket);
    stores.push(store);
    return store;
  };
  afterAll(() => {
    for (const store of stores) store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a missing bucket once, then finds it; checkBucket fails while it is missing', async () => {
    const store = storeOf(`kit-${randomUUID()}`);
    await expect(store.checkBucket()).rejects.toMatchObject({ name: 'NotFound' });
    await store.ensureBucket();
    await store.ensureBucket();
    await expect(store.checkBucket()).resolves.toBeUndefined();
  });

  it('puts, reads back and removes objects, as buffers and as streamed files', async () => {
    const store = storeOf(`kit-${randomUUID()}`);
    await store.ensureBucket();
    await store.put('photos/a.png', Buffer.from('png bytes'), 'image/png');
    expect((await store.get('photos/a.png')).toString()).toBe('png bytes');

    const staged = join(dir, 'upload.pdf');
    const content = Buffer.alloc(3 * 1024 * 1024, 7); // larger than one stream chunk
    writeFileSync(staged, content);
    await store.putFile('uploads/task/0', staged, 'application/pdf');
    const copy = join(dir, 'copy.pdf');
    await store.getFile('uploads/task/0', copy);
    expect(readFileSync(copy).equals(content)).toBe(true);

    await store.remove('uploads/task/0');
    const missing = join(dir, 'missing.pdf');
    await expect(store.getFile('uploads/task/0', missing)).rejects.toMatchObject({
      name: 'NoSuchKey',
    });
    expect(existsSync(missing)).toBe(false);
  });

  it('does not hide refused credentials behind a bucket creation', async () => {
    const store = storeOf(`kit-${randomUUID()}`, { S3_SECRET_KEY: 'not-the-secret' });
    const failure = await store.ensureBucket().catch((err: unknown) => err);
    expect(failure).toMatchObject({ $metadata: { httpStatusCode: 403 } });
    expect(String(failure)).not.toContain('not-the-secret');
  });
});
