/**
 * One bucket of S3-compatible object storage (MinIO in tests: path-style addressing), from the
 * S3_* settings every service names alike. Its own entry, `@pelita/kit/object-store`: only the
 * services that store objects install `@aws-sdk/client-s3`.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type * as S3 from '@aws-sdk/client-s3';
import { z } from 'zod';
import { booleanSetting, optionalHttpUrl, optionalSetting } from './config';

/** The settings, to spread into a service's schema. */
export const objectStoreSettings = {
  /** S3 endpoint (MinIO and friends); unset: AWS S3 of `S3_REGION`. */
  S3_ENDPOINT: optionalHttpUrl,
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_BUCKET: z.string().min(1).default('pelita'),
  S3_ACCESS_KEY: optionalSetting,
  S3_SECRET_KEY: optionalSetting,
  S3_FORCE_PATH_STYLE: booleanSetting.default(true),
};

/** The settings, as services name them; the key pair is used only when both halves are set. */
export interface ObjectStoreSettings {
  /** Unset: AWS S3 of the region. */
  S3_ENDPOINT?: string | undefined;
  S3_REGION: string;
  S3_ACCESS_KEY?: string | undefined;
  S3_SECRET_KEY?: string | undefined;
  S3_FORCE_PATH_STYLE: boolean;
}

export interface ObjectStore {
  readonly bucket: string;
  /** Creates the bucket unless it exists (another replica may create it meanwhile: fine). */
  ensureBucket(): Promise<void>;
  /** For `/ready`: the bucket answers. Throws otherwise. */
  checkBucket(): Promise<void>;
  put(key: string, body: Buffer, contentType?: string): Promise<void>;
  get(key: string): Promise<Buffer>;
  /** Streams the file at `path` (a staged upload) to `key`, without reading it into memory. */
  putFile(key: string, path: string, contentType?: string): Promise<void>;
  /** Streams `key` to the file at `path`; no partial file is left when that fails. */
  getFile(key: string, path: string): Promise<void>;
  remove(key: string): Promise<void>;
  close(): void;
}

export function createObjectStore(settings: ObjectStoreSettings, bucket: string): ObjectStore {
  // Loaded here, when a service builds its dependencies at start, not by every importer of the kit.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const s3 = require('@aws-sdk/client-s3') as typeof S3;
  const client = new s3.S3Client({
    region: settings.S3_REGION,
    forcePathStyle: settings.S3_FORCE_PATH_STYLE,
    ...(settings.S3_ENDPOINT ? { endpoint: settings.S3_ENDPOINT } : {}),
    ...(settings.S3_ACCESS_KEY && settings.S3_SECRET_KEY
      ? {
          credentials: {
            accessKeyId: settings.S3_ACCESS_KEY,
            secretAccessKey: settings.S3_SECRET_KEY,
          },
        }
      : {}),
  });
  const Bucket = bucket;
  const checkBucket = async () => {
    await client.send(new s3.HeadBucketCommand({ Bucket }));
  };
  const body = async (key: string) => {
    const res = await client.send(new s3.GetObjectCommand({ Bucket, Key: key }));
    if (!res.Body) throw new Error(`object ${key} has no body`);
    return res.Body;
  };

  return {
    bucket,
    async ensureBucket() {
      try {
        return await checkBucket();
      } catch (err) {
        // Only a missing bucket is created: refused credentials or an unreachable server are
        // the caller's to see, not hidden behind a failed create.
        if ((err as { name?: string }).name !== 'NotFound') throw err;
      }
      await client.send(new s3.CreateBucketCommand({ Bucket })).catch((err: unknown) => {
        const name = (err as { name?: string }).name;
        if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw err;
      });
    },
    checkBucket,
    async put(key, data, contentType) {
      await client.send(
        new s3.PutObjectCommand({ Bucket, Key: key, Body: data, ContentType: contentType }),
      );
    },
    async get(key) {
      return Buffer.from(await (await body(key)).transformToByteArray());
    },
    async putFile(key, path, contentType) {
      const { size } = await stat(path);
      await client.send(
        new s3.PutObjectCommand({
          Bucket,
          Key: key,
          Body: createReadStream(path),
          ContentLength: size,
          ContentType: contentType,
        }),
      );
    },
    async getFile(key, path) {
      try {
        await pipeline((await body(key)) as Readable, createWriteStream(path));
      } catch (err) {
        await rm(path, { force: true });
        throw err;
      }
    },
    async remove(key) {
      await client.send(new s3.DeleteObjectCommand({ Bucket, Key: key }));
    },
    close: () => client.destroy(),
  };
}
