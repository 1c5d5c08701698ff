/**
 * Uploaded originals, kept in object storage (`{prefix}/{id}`: `core-documents/` for documents,
 * `core-audios/` for recordings) so they can be processed again without asking for the file
 * again. Documents work without S3 settings (re-processing an upload then answers 409); audios
 * need it (the worker transcribes from the stored recording).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';

const DOCUMENT_ORIGINALS = 'core-documents';

/** Where a document's uploaded original is kept, also before it is recorded on the document. */
export const documentOriginalKey = (id: string) => `${DOCUMENT_ORIGINALS}/${id}`;

export function createOriginals(s3: S3Client, bucket: string, prefix = DOCUMENT_ORIGINALS) {
  const keyOf = (id: string) => `${prefix}/${id}`;
  return {
    async ensureBucket(): Promise<void> {
      try {
        await s3.send(new HeadBucketCommand({ Bucket: bucket }));
      } catch {
        await s3.send(new CreateBucketCommand({ Bucket: bucket })).catch((err: unknown) => {
          const code = (err as { name?: string }).name;
          if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw err;
        });
      }
    },
    async put(id: string, path: string, size: number): Promise<string> {
      const key = keyOf(id);
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: createReadStream(path),
          ContentLength: size,
        }),
      );
      return key;
    },
    async download(key: string, path: string): Promise<void> {
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      await pipeline(object.Body as Readable, createWriteStream(path));
    },
    async remove(key: string): Promise<void> {
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
  };
}

export type Originals = ReturnType<typeof createOriginals>;
