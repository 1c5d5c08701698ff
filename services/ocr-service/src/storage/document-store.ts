/**
 * The OCR documents in object storage: uploads staged for the workers (`ocr-uploads/{task_id}/…`:
 * an API replica takes the file, any worker in any pod reads it), and the PDF of a task with a
 * local file (`ocr-documents/{task_id}.pdf`, the seed's name) with its public URL.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';

export interface DocumentStoreOptions {
  endpoint: string | undefined;
  region: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  bucket: string;
  forcePathStyle: boolean;
  /** Base of the public URLs (a CDN or the bucket's public address); `{endpoint}/{bucket}` when unset. */
  publicBaseUrl: string | undefined;
}

export interface DocumentStore {
  ensureBucket(): Promise<void>;
  /** Uploads the file at `path` under `key`. */
  putFile(key: string, path: string, contentType: string): Promise<void>;
  /** Downloads `key` to the file at `path`. */
  getFile(key: string, path: string): Promise<void>;
  remove(key: string): Promise<void>;
  /** The public URL of `key` (the seed's `output_pdf_file`). */
  publicUrl(key: string): string;
  close(): void;
}

export const stagedUploadKey = (taskId: string, index: number) => `ocr-uploads/${taskId}/${index}`;
export const documentPdfKey = (taskId: string) => `ocr-documents/${taskId}.pdf`;

export function createDocumentStore(options: DocumentStoreOptions): DocumentStore {
  const client = new S3Client({
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.accessKeyId && options.secretAccessKey
      ? {
          credentials: {
            accessKeyId: options.accessKeyId,
            secretAccessKey: options.secretAccessKey,
          },
        }
      : {}),
  });
  const Bucket = options.bucket;
  const publicBase = (
    options.publicBaseUrl ??
    (options.endpoint
      ? `${options.endpoint.replace(/\/+$/, '')}/${Bucket}`
      : `https://${Bucket}.s3.${options.region}.amazonaws.com`)
  ).replace(/\/+$/, '');

  return {
    async ensureBucket() {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
      } catch {
        await client.send(new CreateBucketCommand({ Bucket })).catch((err: unknown) => {
          const name = (err as { name?: string }).name;
          if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw err;
        });
      }
    },
    async putFile(key, path, contentType) {
      const { size } = await stat(path);
      await client.send(
        new PutObjectCommand({
          Bucket,
          Key: key,
          Body: createReadStream(path),
          ContentLength: size,
          ContentType: contentType,
        }),
      );
    },
    async getFile(key, path) {
      const res = await client.send(new GetObjectCommand({ Bucket, Key: key }));
      if (!res.Body) throw new Error(`object ${key} has no body`);
      await pipeline(res.Body as Readable, createWriteStream(path));
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },
    publicUrl: (key) => `${publicBase}/${key.split('/').map(encodeURIComponent).join('/')}`,
    close: () => client.destroy(),
  };
}
