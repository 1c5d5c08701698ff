/**
 * The task API built as `main.ts` builds it, on a free loopback port, against the real Redis,
 * OpenSearch and MinIO of `make testenv`. Each test file takes its own Redis key prefix, result
 * index and bucket (`isolatedNames`), and `cleanUp` removes them. No OCR engine is called by the
 * API: the engine settings only say which ones are configured.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import {
  DeleteBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { Client } from '@opensearch-project/opensearch';
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import { requireEnv } from '@pelita/testenv';
import { Redis } from 'ioredis';
import { createOcrApiService } from '../../../../src/api/service';
import { settingsSchema } from '../../../../src/config';
import { TaskJobSchema, type TaskJob } from '../../../../src/tasks/task-job';

export const env = requireEnv(
  'REDIS_URL',
  'OPENSEARCH_URL',
  'S3_ENDPOINT',
  'S3_ACCESS_KEY',
  'S3_SECRET_KEY',
  'S3_REGION',
);

export interface IsolatedNames {
  REDIS_KEY_PREFIX: string;
  INDEX_PDF_PARSING_RESULTS: string;
  S3_BUCKET: string;
}

export function isolatedNames(): IsolatedNames {
  const id = randomBytes(4).toString('hex');
  return {
    REDIS_KEY_PREFIX: `pelita:test:ocr-api:${id}`,
    INDEX_PDF_PARSING_RESULTS: `pdf-parsing-results-api-${id}`,
    S3_BUCKET: `ocr-api-test-${id}`,
  };
}

export interface ApiUnderTest {
  url: string;
  stop(): Promise<void>;
}

/**
 * Both engines "configured" (the API never calls them); `overrides` change any setting. With
 * `start: false` the start-up work (consumer group, index, bucket) is skipped: a dependency
 * pointed at a closed port would fail it.
 */
export async function startApi(
  names: IsolatedNames,
  overrides: Record<string, string | undefined> = {},
  { start = true }: { start?: boolean } = {},
): Promise<ApiUnderTest> {
  const settings = loadConfig(settingsSchema, {
    REDIS_URL: env.REDIS_URL,
    OPENSEARCH_URL: env.OPENSEARCH_URL,
    S3_ENDPOINT: env.S3_ENDPOINT,
    S3_ACCESS_KEY: env.S3_ACCESS_KEY,
    S3_SECRET_KEY: env.S3_SECRET_KEY,
    S3_REGION: env.S3_REGION,
    OCR_ENGINE_CLOUD_URL: 'http://cloud-engine.invalid',
    OCR_ENGINE_LOCAL_URL: 'http://local-engine.invalid',
    ...names,
    ...overrides,
  });
  const logger = createLogger({
    name: 'ocr-service',
    level: 'silent',
    destination: new Writable({ write: (_chunk, _encoding, done) => done() }),
  });
  const running: RunningServer = await serveInProcess(
    createOcrApiService(settings, logger),
    logger,
    { shutdownTimeoutMs: 1000, start },
  );
  return { url: running.url, stop: () => running.stop() };
}

/** Looks at what the API left in Redis and MinIO, and removes it all at the end. */
export function sharedState(names: IsolatedNames) {
  const redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 2 });
  const s3 = new S3Client({
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: env.S3_ACCESS_KEY, secretAccessKey: env.S3_SECRET_KEY },
  });
  const Bucket = names.S3_BUCKET;
  const stream = `${names.REDIS_KEY_PREFIX}:queue`;

  const objectKeys = async (prefix = '') =>
    ((await s3.send(new ListObjectsV2Command({ Bucket, Prefix: prefix }))).Contents ?? []).map(
      (object) => object.Key ?? '',
    );

  return {
    /** The queue messages, oldest first, with their job parsed by the worker's schema. */
    async messages(): Promise<Array<{ taskId: string; traceparent: string; job: TaskJob }>> {
      const entries = (await redis.xrange(stream, '-', '+')) as Array<[string, string[]]>;
      return entries.map(([, fields]) => {
        const field = (name: string) => fields[fields.indexOf(name) + 1] ?? '';
        return {
          taskId: field('task_id'),
          traceparent: field('traceparent'),
          job: TaskJobSchema.parse(JSON.parse(field('job'))),
        };
      });
    },
    async jobOf(taskId: string): Promise<TaskJob> {
      const message = (await this.messages()).find((m) => m.taskId === taskId);
      if (!message) throw new Error(`no queue message for ${taskId}`);
      return message.job;
    },
    queueLength: () => redis.xlen(stream),
    objectKeys,
    async objectBytes(key: string): Promise<Buffer> {
      const object = await s3.send(new GetObjectCommand({ Bucket, Key: key }));
      return Buffer.from(
        await (
          object.Body as { transformToByteArray(): Promise<Uint8Array> }
        ).transformToByteArray(),
      );
    },
    redis,
    async cleanUp() {
      const keys = await redis.keys(`${names.REDIS_KEY_PREFIX}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
      const search = new Client({ node: env.OPENSEARCH_URL });
      await search.indices
        .delete({ index: names.INDEX_PDF_PARSING_RESULTS })
        .catch(() => undefined)
        .finally(() => search.close());
      const left = await objectKeys().catch(() => []);
      if (left.length > 0) {
        await s3.send(
          new DeleteObjectsCommand({ Bucket, Delete: { Objects: left.map((Key) => ({ Key })) } }),
        );
      }
      await s3.send(new DeleteBucketCommand({ Bucket })).catch(() => undefined);
      s3.destroy();
    },
  };
}

export interface UploadPart {
  field?: string;
  name: string;
  bytes: Buffer | string;
}

/** A multipart form of files (field `file` unless said) and text fields. */
export function formOf(files: UploadPart[], fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const file of files) {
    const bytes = typeof file.bytes === 'string' ? Buffer.from(file.bytes) : file.bytes;
    form.append(file.field ?? 'file', new Blob([new Uint8Array(bytes)]), file.name);
  }
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** A JSON answer, loosely typed for assertions. */
export const bodyOf = (res: Response): Promise<any> => res.json() as Promise<any>;
