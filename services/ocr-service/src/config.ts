/**
 * Settings of the OCR service. The task API (`dist/main.js`) and the worker (`dist/worker.js`)
 * read the same schema: they share the queue, the status records, object storage and the
 * indexes, and one schema keeps their names from drifting apart. Seed names are kept
 * (`MAX_WAIT_OCR`, `INDEX_DOCUMENT_SUMMARIZE`, `INDEX_DOCUMENT_SUMMARIZE_CHUNK`).
 */
import { hostname, tmpdir } from 'node:os';
import {
  allowedTargetsSetting,
  baseSettings,
  MIB,
  openSearchSettings,
  optionalHttpUrl,
  optionalSetting,
  positiveInt,
} from '@pelita/kit';
import { z } from 'zod';
import { objectStoreSettings } from '@pelita/kit/object-store';
import { redisSettings } from '@pelita/kit/redis-client';

/** SigV4 lets a presigned URL live at most seven days. */
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

export const settingsSchema = baseSettings.extend({
  ...redisSettings,
  /**
   * Prefix of every Redis key (queue stream, status records). Installs sharing one Redis get
   * their own (the operator sets it per install).
   */
  REDIS_KEY_PREFIX: z.string().min(1).default('pelita:ocr'),

  ...openSearchSettings,
  /** The result index of the OCR chunks (the seed's default name). */
  INDEX_PDF_PARSING_RESULTS: z.string().min(1).default('pdf-parsing-results'),
  INDEX_DOCUMENT_SUMMARIZE: z.string().min(1).default('summarize_document'),
  INDEX_DOCUMENT_SUMMARIZE_CHUNK: z.string().min(1).default('summarize_document_chunk'),
  /**
   * The install's own indexes before it shared the three above: the worker moves their documents
   * at start, then deletes them.
   */
  LEGACY_INDEX_PDF_PARSING_RESULTS: optionalSetting,
  LEGACY_INDEX_DOCUMENT_SUMMARIZE: optionalSetting,
  LEGACY_INDEX_DOCUMENT_SUMMARIZE_CHUNK: optionalSetting,

  ...objectStoreSettings,
  /**
   * Base of the `output_pdf_file` links, where clients reach the bucket (a proxy keeping the Host
   * header, or a CDN for public documents); unset: `{S3_ENDPOINT}/{S3_BUCKET}`.
   */
  S3_PUBLIC_URL: optionalHttpUrl,
  /**
   * `presigned`: `output_pdf_file` is a presigned, time-limited link to a private object;
   * `public`: a plain link, and anyone may read `ocr-documents/` (a bucket policy set at start).
   */
  OUTPUT_PDF_ACCESS: z.enum(['presigned', 'public']).default('presigned'),
  /** Lifetime of a presigned `output_pdf_file` link (SigV4 allows at most 7 days). */
  OUTPUT_URL_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PRESIGN_SECONDS)
    .default(MAX_PRESIGN_SECONDS),

  /** Tasks waiting or running at most; `POST` beyond answers 429 with `Retry-After`. */
  MAX_QUEUED_TASKS: positiveInt(1000),
  /** Finished status records kept (the seed's 1000, oldest evicted first). */
  STATUS_RECORDS_KEPT: positiveInt(1000),
  /** A task whose worker has been silent this long is taken over by another worker. */
  CLAIM_IDLE_MS: positiveInt(60_000),
  /** Deliveries of one task at most (a task that keeps killing workers ends `failed`). */
  MAX_DELIVERIES: positiveInt(3),

  /** Largest uploaded file, in bytes. */
  MAX_UPLOAD_BYTES: positiveInt(100 * MIB),
  /** Files (or URLs) one merge or one bulk request may carry. */
  MAX_FILES_PER_REQUEST: positiveInt(20),
  /** Uploads are received here before they are staged in object storage. */
  TEMP_DIR: z.string().min(1).default(tmpdir()),

  // The worker's settings.
  /** This worker's consumer name in the queue; the StatefulSet's pod name is stable. */
  WORKER_NAME: z.string().min(1).default(hostname()),
  /** Tasks one worker runs at once. */
  WORKER_CONCURRENCY: positiveInt(1),
  /** Where a worker keeps a task's files while it runs (removed after each task). */
  WORK_DIR: z.string().min(1).default(tmpdir()),
  /** Poll budget of the OCR engine (the seed's 300 × 2 s); used up: `Task timeout`, 504. */
  MAX_WAIT_OCR: positiveInt(300),
  OCR_POLL_INTERVAL_MS: positiveInt(2000),
  /** Time limit of one HTTP request to an OCR engine. */
  OCR_REQUEST_TIMEOUT_MS: positiveInt(60_000),
  /** The `local` engine: a self-hosted MinerU API (Pelita's ocr-engine or a real MinerU). */
  OCR_ENGINE_LOCAL_URL: optionalHttpUrl,
  /** The `cloud` engine: MinerU's cloud task API (v4) and its key. */
  OCR_ENGINE_CLOUD_URL: optionalHttpUrl,
  OCR_ENGINE_CLOUD_API_KEY: optionalSetting,
  /**
   * The cloud engine's result archive: entries it may list, and bytes its content list may
   * inflate to. Beyond either the task fails (502) instead of the worker inflating a zip bomb.
   */
  OCR_RESULT_MAX_ENTRIES: positiveInt(10_000),
  OCR_RESULT_MAX_BYTES: positiveInt(64 * MIB),
  /** The office converter (office files and images to PDF, merges). */
  URL_CONVERTER: optionalHttpUrl,
  /** Time limit of one conversion or merge call. */
  CONVERSION_TIMEOUT_MS: positiveInt(180_000),
  /** Time limit of one `url_file` download, and its size cap. */
  DOWNLOAD_TIMEOUT_MS: positiveInt(60_000),
  MAX_DOWNLOAD_BYTES: positiveInt(100 * MIB),
  /** Addresses `url_file` may reach although not public (CIDR ranges, addresses, host names). */
  ALLOWED_TARGETS: allowedTargetsSetting,
  /** The summarizer (the seed's `summarize_url`); unset: no summaries (said once at start). */
  URL_SUMMARIZER: optionalHttpUrl,
  /**
   * Summaries one worker runs at once, beside and apart from its OCR tasks (the seed's background
   * pool); 0: this worker runs none (another process does).
   */
  SUMMARY_CONCURRENCY: z.coerce.number().int().min(0).default(1),
  /** Summaries waiting or running at most; a task finishing beyond marks its summary failed. */
  MAX_QUEUED_SUMMARIES: positiveInt(10_000),
});

export type Settings = z.output<typeof settingsSchema>;
