/**
 * The OCR documents in object storage: uploads staged for the workers (`ocr-uploads/{task_id}/…`:
 * an API replica takes the file, any worker in any pod reads it), and the PDF of a task with a
 * local file (`ocr-documents/{task_id}.pdf`, the seed's name) with the link the seed calls
 * `output_pdf_file`: presigned and time-limited (the bucket stays private), or, where the install
 * chooses public documents, a plain URL the storage serves to anyone (`ocr-documents/` only).
 */
import { GetBucketPolicyCommand, PutBucketPolicyCommand, S3Client } from '@aws-sdk/client-s3';
import {
  createObjectStore,
  type ObjectStore,
  type ObjectStoreSettings,
} from '@pelita/kit/object-store';
import { presignGetUrl } from './presigned-url';

export interface DocumentStoreSettings extends ObjectStoreSettings {
  S3_BUCKET: string;
  /** Base of the links (where clients reach the bucket: a proxy, a CDN); `{endpoint}/{bucket}` when unset. */
  S3_PUBLIC_URL?: string | undefined;
  /** `presigned` (default) or `public`. */
  OUTPUT_PDF_ACCESS?: 'presigned' | 'public';
  /** Lifetime of a presigned link, in seconds. */
  OUTPUT_URL_TTL_SECONDS?: number;
}

export interface DocumentStore extends ObjectStore {
  /** The link to `key` handed to clients (the seed's `output_pdf_file`), valid from `now`. */
  outputUrl(key: string, now?: Date): string;
  /**
   * Public documents: lets anyone read `ocr-documents/` (a bucket policy; nothing else of the
   * bucket). Presigned links: does nothing.
   */
  ensureOutputAccess(): Promise<void>;
}

export const stagedUploadKey = (taskId: string, index: number) => `ocr-uploads/${taskId}/${index}`;
export const documentPdfKey = (taskId: string) => `ocr-documents/${taskId}.pdf`;

const DEFAULT_TTL_SECONDS = 7 * 24 * 3600;

export function createDocumentStore(settings: DocumentStoreSettings): DocumentStore {
  const bucket = settings.S3_BUCKET;
  const base = (
    settings.S3_PUBLIC_URL ??
    (settings.S3_ENDPOINT
      ? `${settings.S3_ENDPOINT.replace(/\/+$/, '')}/${bucket}`
      : `https://${bucket}.s3.${settings.S3_REGION}.amazonaws.com`)
  ).replace(/\/+$/, '');
  const plainUrl = (key: string) => `${base}/${key.split('/').map(encodeURIComponent).join('/')}`;
  const access = settings.OUTPUT_PDF_ACCESS ?? 'presigned';
  const { S3_ACCESS_KEY: accessKey, S3_SECRET_KEY: secretKey } = settings;
  return {
    ...createObjectStore(settings, bucket),
    outputUrl(key, now = new Date()) {
      // Without a key pair (credentials from the environment's role) nothing can be signed here.
      if (access === 'public' || !accessKey || !secretKey) return plainUrl(key);
      return presignGetUrl({
        objectUrl: plainUrl(key),
        region: settings.S3_REGION,
        accessKey,
        secretKey,
        expiresSeconds: settings.OUTPUT_URL_TTL_SECONDS ?? DEFAULT_TTL_SECONDS,
        now,
      });
    },
    async ensureOutputAccess() {
      if (access !== 'public') return;
      const client = new S3Client({
        region: settings.S3_REGION,
        forcePathStyle: settings.S3_FORCE_PATH_STYLE,
        ...(settings.S3_ENDPOINT ? { endpoint: settings.S3_ENDPOINT } : {}),
        ...(accessKey && secretKey
          ? { credentials: { accessKeyId: accessKey, secretAccessKey: secretKey } }
          : {}),
      });
      try {
        // The bucket may have a policy of its own (other services): the statement is merged in.
        const current = await client.send(new GetBucketPolicyCommand({ Bucket: bucket })).then(
          (res) => res.Policy,
          (err: unknown) => {
            if ((err as { name?: string }).name === 'NoSuchBucketPolicy') return undefined;
            throw err;
          },
        );
        await client.send(
          new PutBucketPolicyCommand({ Bucket: bucket, Policy: withPublicRead(bucket, current) }),
        );
      } finally {
        client.destroy();
      }
    },
  };
}

const PUBLIC_READ_SID = 'PelitaPublicOcrDocuments';

/**
 * `current` (a bucket policy, or none) with one statement added or replaced: anyone may read the
 * stored PDFs; staged uploads and everything else stay private.
 */
function withPublicRead(bucket: string, current: string | undefined): string {
  const policy = current
    ? (JSON.parse(current) as { Version?: string; Statement?: Array<{ Sid?: string }> })
    : { Version: '2012-10-17', Statement: [] };
  const others = (policy.Statement ?? []).filter((statement) => statement.Sid !== PUBLIC_READ_SID);
  return JSON.stringify({
    ...policy,
    Statement: [
      ...others,
      {
        Sid: PUBLIC_READ_SID,
        Effect: 'Allow',
        Principal: { AWS: ['*'] },
        Action: ['s3:GetObject'],
        Resource: [`arn:aws:s3:::${bucket}/ocr-documents/*`],
      },
    ],
  });
}
