/** Profile photos against the real MinIO of `make testenv`: type and size checks, replace, read back. */
import { randomBytes } from 'node:crypto';
import {
  DeleteBucketCommand,
  DeleteObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { requireEnv, waitFor } from '@pelita/testenv';
import { ADMIN, startPlatform, type Platform } from './support/platform';

const env = requireEnv('S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_REGION');
const BUCKET = `user-photos-test-${randomBytes(4).toString('hex')}`;
const s3 = new S3Client({
  endpoint: env.S3_ENDPOINT,
  region: env.S3_REGION,
  forcePathStyle: true,
  credentials: { accessKeyId: env.S3_ACCESS_KEY, secretAccessKey: env.S3_SECRET_KEY },
});

// The smallest valid PNG (1×1) and a JPEG start: the service checks the leading bytes.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(200)]);

describe('profile photos', () => {
  let platform: Platform;
  let admin: string;
  let userId: string;

  beforeAll(async () => {
    platform = await startPlatform({
      S3_ENDPOINT: env.S3_ENDPOINT,
      S3_ACCESS_KEY: env.S3_ACCESS_KEY,
      S3_SECRET_KEY: env.S3_SECRET_KEY,
      S3_REGION: env.S3_REGION,
      S3_BUCKET: BUCKET,
      PHOTO_MAX_BYTES: '1024',
    });
    await waitFor(() => platform.allows(ADMIN.username, 'PUT', '/users/x/photo'), 'admin grants');
    admin = (await platform.login(ADMIN.email, ADMIN.password)).access_token;
    const users = (await (await platform.request('GET', '/users', { token: admin })).json()) as {
      data: Array<{ id: string; username: string }>;
    };
    userId = users.data.find((user) => user.username === ADMIN.username)!.id;
  });
  afterAll(async () => {
    await platform?.stop();
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    for (const object of listed.Contents ?? []) {
      await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: object.Key }));
    }
    await s3.send(new DeleteBucketCommand({ Bucket: BUCKET }));
    s3.destroy();
  });

  function upload(data: Buffer, filename: string, type: string) {
    const form = new FormData();
    form.append('photo', new Blob([data], { type }), filename);
    return fetch(`${platform.url}/users/${userId}/photo`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${admin}` },
      body: form,
    });
  }
  const objects = async () =>
    ((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? []).map(
      (o) => o.Key,
    );

  it('stores a PNG and serves it back with its type; the user points at it', async () => {
    expect((await upload(PNG, 'me.png', 'image/png')).status).toBe(204);
    const photo = await platform.request('GET', `/users/${userId}/photo`, { token: admin });
    expect(photo.status).toBe(200);
    expect(photo.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await photo.arrayBuffer()).equals(PNG)).toBe(true);
    const user = (await (
      await platform.request('GET', `/users/${userId}`, { token: admin })
    ).json()) as any;
    expect(user.photo_url).toBe(`/users/${userId}/photo`);
  });

  it('replaces the photo and removes the previous object', async () => {
    const before = await objects();
    expect(before).toHaveLength(1);
    // The client's type is ignored: the bytes say JPEG.
    expect((await upload(JPEG, 'me.bin', 'application/octet-stream')).status).toBe(204);
    const after = await objects();
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before[0]);
    const photo = await platform.request('GET', `/users/${userId}/photo`, { token: admin });
    expect(photo.headers.get('content-type')).toBe('image/jpeg');
  });

  it('refuses other types (415), photos over the limit (413) and an empty body (400)', async () => {
    const text = await upload(Buffer.from('<svg onload=alert(1)>'), 'x.png', 'image/png');
    expect(text.status).toBe(415);
    expect(((await text.json()) as any).error.code).toBe('unsupported_media_type');
    const big = await upload(Buffer.concat([JPEG, randomBytes(2000)]), 'big.jpg', 'image/jpeg');
    expect(big.status).toBe(413);
    const none = await fetch(`${platform.url}/users/${userId}/photo`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${admin}` },
      body: new FormData(),
    });
    expect(none.status).toBe(400);
    expect(await objects()).toHaveLength(1);
  });
});
