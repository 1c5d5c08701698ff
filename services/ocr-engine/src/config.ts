/** Settings of the local OCR engine: where tasks live, how many run, OCR and vision-model options. */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseSettings, MIB, optionalHttpUrl, optionalSetting, positiveInt } from '@pelita/kit';
import { z } from 'zod';

export const settingsSchema = baseSettings
  .extend({
    /** Tasks (record, uploads, result) live here, one folder each; survives restarts when on a volume. */
    TASK_DIR: z.string().min(1).default(join(tmpdir(), 'pelita-ocr-engine')),
    /** Tasks processed at once. */
    MAX_CONCURRENT_TASKS: positiveInt(1),
    /** Tasks waiting at most; a submission beyond is answered 503 with Retry-After. */
    MAX_QUEUED_TASKS: positiveInt(100),
    /** Largest uploaded file, in bytes. */
    MAX_UPLOAD_BYTES: positiveInt(200 * MIB),
    /** Files per task at most. */
    MAX_FILES: positiveInt(20),
    /** Finished tasks (completed or failed) are removed after this many seconds. */
    TASK_RETENTION_SECONDS: positiveInt(24 * 3600),
    /** tesseract languages, `+`-joined; each must be installed (`tesseract --list-langs`). */
    OCR_LANGUAGES: z
      .string()
      .regex(/^[a-z_]+(\+[a-z_]+)*$/, 'tesseract language codes joined by +')
      .default('eng'),
    /** Resolution pages are rendered at for OCR. */
    OCR_DPI: z.coerce.number().int().min(72).max(600).default(300),
    /** In `auto` mode a page whose text layer has fewer characters is OCR'd. */
    MIN_TEXT_CHARS: z.coerce.number().int().min(0).default(16),
    /** Time limit of one tool run (one page rendered, read or OCR'd). */
    TOOL_TIMEOUT_MS: positiveInt(120_000),
    /** OpenAI-compatible API root (with `/v1`) of a vision model; unset: images are listed without descriptions. */
    VISION_BASE_URL: optionalHttpUrl,
    VISION_API_KEY: z.string().default(''),
    VISION_MODEL: optionalSetting,
    VISION_TIMEOUT_MS: positiveInt(60_000),
  })
  .refine(
    (settings) =>
      (settings.VISION_BASE_URL === undefined) === (settings.VISION_MODEL === undefined),
    {
      message: 'VISION_BASE_URL and VISION_MODEL go together: set both or neither',
      path: ['VISION_MODEL'],
    },
  );

export type Settings = z.output<typeof settingsSchema>;
