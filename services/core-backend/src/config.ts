/**
 * Settings of the core backend: the kit's base settings plus its own. Seed names are kept
 * (`URL_OPA`, `INDEX_USER_ACTIVITY_LOG`, `INDEX_DOCUMENT_SUMMARIZE`, `MAXIMUM_CHAT_PER_ROOM`, ...);
 * the model server is the platform's `llm` dependency as the operator renders it for every
 * service (`BASE_URL_LOCAL`, `MODEL_LOCAL`, `API_KEY_LOCAL`).
 */
import { tmpdir } from 'node:os';
import {
  allowedTargetsSetting,
  baseSettings,
  booleanSetting,
  httpUrl,
  MIB,
  optionalHttpUrl,
  openSearchSettings,
  optionalSetting,
  idlePollSettings,
  pemSetting,
  positiveInt,
  postgresPoolSettings,
  STRUCTURED_OUTPUT_MODES,
} from '@pelita/kit';
import { z } from 'zod';
import { objectStoreSettings } from '@pelita/kit/object-store';
import { redisSettings } from '@pelita/kit/redis-client';

const milliseconds = z.coerce.number().int().positive();

/** 32 bytes for AES-256-GCM, as 64 hex digits or base64 (what `openssl rand -base64 32` prints). */
const encryptionKey = z
  .string()
  .transform((value) =>
    /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64'),
  )
  .refine((key) => key.length === 32, 'must be 32 bytes: 64 hex digits or base64 of 32 bytes');

export const settingsSchema = baseSettings.extend({
  DATABASE_URL: z.string().min(1),
  ...postgresPoolSettings,
  ...idlePollSettings,
  /** PostgreSQL schema of the core backend's tables: one database may hold several services. */
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a lower-case SQL identifier')
    .default('core_backend'),
  ...redisSettings,
  /**
   * Before every Redis key (the user service's sessions it checks, its own keys): the same as
   * the user service's REDIS_KEY_PREFIX, so installations sharing one Redis never meet.
   */
  REDIS_KEY_PREFIX: z.string().max(100).default(''),
  /**
   * The user service's ES256 public key (PEM): access tokens are verified with it. Unset: fetched
   * from `URL_USER` at start.
   */
  JWT_PUBLIC_KEY: pemSetting,
  /**
   * The user service: its public key is fetched from it when JWT_PUBLIC_KEY is unset, and the
   * chat page's login, refresh and logout are relayed to it.
   */
  URL_USER: optionalHttpUrl,
  /** Time-out of a relayed login, refresh or logout. */
  USER_SERVICE_TIMEOUT_MS: milliseconds.default(10_000),
  /**
   * Proxy hops in front of the core backend whose X-Forwarded-For is believed (express's `trust
   * proxy` hop count): 1 behind one Ingress. The visitor's address limits widget questions and is
   * passed on with relayed logins.
   */
  TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
  /** Questions one visitor address may ask one embedded widget per EMBED_RATE_WINDOW_SECONDS. */
  EMBED_RATE_LIMIT: z.coerce.number().int().min(1).default(30),
  EMBED_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(600),
  URL_OPA: httpUrl.default('http://127.0.0.1:8181'),
  /**
   * The token the user service presents on `/utils/*` (its `CORE_BACKEND_TOKEN`); unset, those
   * endpoints refuse every call (said at start).
   */
  SERVICE_TOKEN: optionalSetting,
  /** Secrets of databases and APIs are stored encrypted with this key (AES-256-GCM). */
  ENCRYPTION_KEY: encryptionKey,
  ...openSearchSettings,
  /** Passages of every workspace (chunks, summaries, transcripts) for retrieval. */
  KNOWLEDGE_INDEX: z.string().min(1).default('pelita-knowledge'),
  /** The install's own knowledge index before it shared KNOWLEDGE_INDEX: moved at start, then deleted. */
  LEGACY_KNOWLEDGE_INDEX: optionalSetting,
  INDEX_USER_ACTIVITY_LOG: z.string().min(1).default('user-activity-log'),
  /** The install's OpenAI-compatible model server (the operator's `llm` dependency). */
  BASE_URL_LOCAL: optionalHttpUrl,
  MODEL_LOCAL: optionalSetting,
  API_KEY_LOCAL: optionalSetting,
  /** The ocr-service (task API); unset: documents cannot be added (503 `ocr_not_configured`). */
  URL_OCR: optionalHttpUrl,
  /** The engine documents go to unless the request names one. */
  DEFAULT_OCR_PROCESSING: z.enum(['cloud', 'local']).default('local'),
  /** Time allowed for one call to the ocr-service. */
  OCR_REQUEST_TIMEOUT_MS: milliseconds.default(30_000),
  /** How often documents in processing are followed. */
  OCR_POLL_INTERVAL_MS: milliseconds.default(2000),
  /** How long after a document is done its summary is still waited for. */
  SUMMARY_WAIT_MS: milliseconds.default(600_000),
  /** The ocr-service's indexes (same names and defaults as there; the seed's). */
  INDEX_PDF_PARSING_RESULTS: z.string().min(1).default('pdf-parsing-results'),
  INDEX_DOCUMENT_SUMMARIZE: z.string().min(1).default('summarize_document'),
  INDEX_DOCUMENT_SUMMARIZE_CHUNK: z.string().min(1).default('summarize_document_chunk'),
  /** Largest upload. */
  MAX_UPLOAD_BYTES: positiveInt(100 * MIB),
  /** Uploads are received here. */
  TEMP_DIR: z.string().default(tmpdir()),
  /** Object storage: uploaded originals (re-processing) and the OCR's stored PDFs (deletion). */
  ...objectStoreSettings,
  /** Earlier exchanges of a room sent with each question (the seed's setting), unless the workspace sets its own. */
  MAXIMUM_CHAT_PER_ROOM: z.coerce.number().int().min(0).max(50).default(2),
  /** The turn an answer's passages go in: the question's (small models read it) or the system's. */
  CHAT_PASSAGES_IN: z.enum(['user', 'system']).default('user'),
  /** db-proxy, for testing databases and listing their tables; unset: those answer 503. */
  URL_DB_PROXY: optionalHttpUrl,
  /** Time-out of db-proxy calls (the seed's setting and default). */
  DATABASE_CONNECT_TIMEOUT: milliseconds.default(86_400_000),
  /** http-proxy, for trying API endpoints; unset: that answers 503. */
  URL_HTTP_PROXY: optionalHttpUrl,
  /** Sent as `Authorization: Bearer` to db-proxy (its PROXY_SERVICE_TOKEN). */
  DB_PROXY_TOKEN: optionalSetting,
  /** Sent as `Authorization: Bearer` to http-proxy (its PROXY_SERVICE_TOKEN). */
  HTTP_PROXY_TOKEN: optionalSetting,
  HTTP_PROXY_TIMEOUT_MS: milliseconds.default(60_000),
  /** Most characters of material a report is made from (the seed's setting). */
  MAX_CHAR_GENERATE_REPORT: positiveInt(100_000),
  /** Time allowed for the model's first answer and between two streamed chunks. */
  LLM_TIMEOUT_MS: milliseconds.default(120_000),
  /** Retries of a model call that fails before answering (connection errors, 429, 5xx). */
  LLM_MAX_RETRIES: z.coerce.number().int().min(0).max(5).default(1),
  /**
   * How planning answers (text-to-SQL, text-to-API) ask for JSON first: `json_schema`,
   * `json_object` or `prompt`; a server that refuses a mode moves that model down once.
   */
  LLM_STRUCTURED_OUTPUT: z.enum(STRUCTURED_OUTPUT_MODES).default('json_schema'),
  /**
   * Non-public addresses a workspace's own model server (`base_url`) may be at: CIDR ranges,
   * addresses or host names, comma-separated. Unset: public addresses only.
   */
  ALLOWED_TARGETS: allowedTargetsSetting,
  /** Embeddings model; unset: retrieval is BM25 only. */
  EMBEDDINGS_MODEL: optionalSetting,
  /** Server of `/embeddings`; unset: BASE_URL_LOCAL. */
  EMBEDDINGS_BASE_URL: optionalHttpUrl,
  /** Its key; unset: API_KEY_LOCAL. */
  EMBEDDINGS_API_KEY: optionalSetting,
  EMBEDDINGS_TIMEOUT_MS: milliseconds.default(60_000),
  /**
   * Speech-to-text: an OpenAI-compatible `/audio/transcriptions` server (unset: BASE_URL_LOCAL;
   * neither: audios cannot be added, 503), its key, and the seed's settings.
   */
  STT_BASE_URL: optionalHttpUrl,
  STT_API_KEY: optionalSetting,
  STT_MODEL: z.string().min(1).default('turbo'),
  STT_DIARIZE: booleanSetting.default(true),
  STT_SUPPRESS_NUMERALS: booleanSetting.default(false),
  /** Spoken language hint (ISO-639-1); unset: the server detects it. */
  STT_LANGUAGE: optionalSetting,
  STT_TIMEOUT_MS: milliseconds.default(3_600_000),
  /** Words per indexed transcript chunk (a speaker's turn is split only when longer). */
  TRANSCRIPT_CHUNK_WORDS: z.coerce.number().int().min(20).max(5000).default(200),
  /** How often audios waiting for transcription or summary are looked for. */
  AUDIO_POLL_INTERVAL_MS: milliseconds.default(2000),
  /** Attempts of a transcription or summary that fails for a passing reason (5xx, time-out). */
  AUDIO_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
  /** The summarizer, for transcripts; unset: audios get no summary (said at start). */
  URL_SUMMARIZER: optionalHttpUrl,
  /** The seed's core-backend summarise settings. */
  SUMMARIZE_TIMEOUT: milliseconds.default(86_400_000),
  SUMMARIZE_NER: booleanSetting.default(true),
  SUMMARIZE_CHUNK_SIZE: positiveInt(1000),
  SUMMARIZE_TARGET_CONTEXT: positiveInt(128_000),
  /** Calls to a workspace integration's messaging bridge (the seed's). */
  WHATSAPP_TIMEOUT: milliseconds.default(86_400_000),
  /** Messages one sender may send one integration per WHATSAPP_RATE_WINDOW_SECONDS. */
  WHATSAPP_RATE_LIMIT: z.coerce.number().int().min(1).default(20),
  WHATSAPP_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(600),
  /** Tries of one reply (answer and send) before it is recorded `failed`. */
  WHATSAPP_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  /** The pause before the second try, doubling with each try after (429: its Retry-After). */
  WHATSAPP_RETRY_MS: milliseconds.default(2_000),
  /** Messages the bridge answers at once per replica (one sender's one after another). */
  WHATSAPP_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** How often the outbox is looked at when it was empty (a webhook also wakes it). */
  WHATSAPP_POLL_MS: milliseconds.default(1_000),
  /** An app key's `last_used_at` is written at most this often (not a database write per call). */
  APP_KEY_LAST_USED_INTERVAL_MS: milliseconds.default(60_000),
});

export type Settings = z.infer<typeof settingsSchema>;

/** Whether object storage is configured: an endpoint, or AWS S3 with a key pair. */
export function s3Configured(settings: Settings): boolean {
  return Boolean(settings.S3_ENDPOINT || settings.S3_ACCESS_KEY);
}

/** The install's model server, the fallback of every workspace (undefined when not configured). */
export function installModel(settings: Settings) {
  if (!settings.BASE_URL_LOCAL || !settings.MODEL_LOCAL) return undefined;
  return {
    baseUrl: settings.BASE_URL_LOCAL,
    model: settings.MODEL_LOCAL,
    apiKey: settings.API_KEY_LOCAL,
  };
}

/** The speech-to-text server, when one is known. */
export function sttSettings(settings: Settings) {
  const baseUrl = settings.STT_BASE_URL ?? settings.BASE_URL_LOCAL;
  if (!baseUrl) return undefined;
  return {
    baseUrl,
    apiKey: settings.STT_API_KEY ?? settings.API_KEY_LOCAL,
    model: settings.STT_MODEL,
    diarize: settings.STT_DIARIZE,
    suppressNumerals: settings.STT_SUPPRESS_NUMERALS,
    language: settings.STT_LANGUAGE,
    timeoutMs: settings.STT_TIMEOUT_MS,
  };
}

/** Where embeddings come from, when a model is set and a server is known. */
export function embeddingsSettings(settings: Settings) {
  const baseUrl = settings.EMBEDDINGS_BASE_URL ?? settings.BASE_URL_LOCAL;
  if (!settings.EMBEDDINGS_MODEL || !baseUrl) return undefined;
  return {
    baseUrl,
    apiKey: settings.EMBEDDINGS_API_KEY ?? settings.API_KEY_LOCAL,
    model: settings.EMBEDDINGS_MODEL,
    timeoutMs: settings.EMBEDDINGS_TIMEOUT_MS,
  };
}
