/**
 * Settings of the summarizer: the kit's base settings plus the model server and the limits.
 * They come from the environment through the kit's loader; a secret-store provider, when one is
 * added, fills the same names before `loadConfig` runs.
 */
import { tmpdir } from 'node:os';
import { baseSettings, MIB, positiveInt, STRUCTURED_OUTPUT_MODES } from '@pelita/kit';
import { z } from 'zod';

export const settingsSchema = baseSettings.extend({
  /** OpenAI-compatible API root of the model server, including `/v1`. */
  BASE_URL_LOCAL: z.url({ protocol: /^https?$/ }),
  /** API key sent as `Authorization: Bearer`; empty sends no `Authorization` header. */
  API_KEY_LOCAL: z.string().default(''),
  /** Model name used for every call. */
  MODEL_LOCAL: z.string().trim().min(1),
  /** Seconds one model call (one HTTP attempt) may take. */
  LLM_TIMEOUT: z.coerce.number().positive().default(600),
  /** Retries of a model call on connection errors, time-outs, 408/409/429 and 5xx. */
  LLM_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  /** Model calls in flight at once, for the whole process. */
  LLM_MAX_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(2),
  /** Largest uploaded file, in bytes; larger uploads are answered 413. */
  MAX_UPLOAD_BYTES: positiveInt(50 * MIB),
  /** Upper bound of re-summarising passes, on top of the rule that every pass must shrink. */
  MAX_REDUCTION_PASSES: z.coerce.number().int().min(0).max(100).default(10),
  /** Where per-request temporary directories (upload, result file) are created. */
  TEMP_DIR: z.string().min(1).default(tmpdir()),
  /**
   * How JSON is asked for: `json_schema` (the server enforces the answer's schema), `json_object`
   * or `prompt` (instructions only). A server that refuses a mode moves the model down once.
   */
  LLM_STRUCTURED_OUTPUT: z.enum(STRUCTURED_OUTPUT_MODES).default('json_schema'),
  /**
   * Largest answer asked of one call (`max_tokens`), lowered to what the context leaves; 0: no
   * fixed cap (the answer's budget, `LLM_ANSWER_RATIO`, within what the context leaves when it is
   * known, else no `max_tokens` at all).
   */
  LLM_MAX_TOKENS: z.coerce
    .number()
    .int()
    .refine((value) => value === 0 || (value >= 16 && value <= 1_000_000), {
      message: '0, or 16 to 1000000',
    })
    .default(0),
  /**
   * With `LLM_MAX_TOKENS=0`: each call's `max_tokens` is at most 256 plus this many times the
   * tokens of the text it works on (and what the context leaves); 0: what the context leaves.
   */
  LLM_ANSWER_RATIO: z.coerce.number().min(0).max(100).default(1),
  /** The model's context length in tokens; 0: as the model list reports it (else no cap). */
  LLM_CONTEXT_LENGTH: z.coerce.number().int().min(0).default(0),
  /** Time limit of the model list call made by `/health`, `/ready` and the start-up probe. */
  UPSTREAM_CHECK_TIMEOUT_MS: positiveInt(5000),
});

export type Settings = z.output<typeof settingsSchema>;
