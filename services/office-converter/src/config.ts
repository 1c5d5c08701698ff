/** Settings of the office converter: the LibreOffice and pandoc binaries, limits, and where temporary files go. */
import { tmpdir } from 'node:os';
import { baseSettings, MIB, positiveInt } from '@pelita/kit';
import { z } from 'zod';

export const settingsSchema = baseSettings.extend({
  /** LibreOffice's command (`soffice` on the PATH in the image). */
  SOFFICE_BIN: z.string().min(1).default('soffice'),
  /** Pandoc's command: the second converter, for what LibreOffice fails on (`.docx`, `.odt`, `.rtf`, `.csv`). */
  PANDOC_BIN: z.string().min(1).default('pandoc'),
  /** LibreOffice and pandoc runs at once; each LibreOffice run has a private profile, so runs never collide. */
  MAX_CONCURRENT_CONVERSIONS: positiveInt(2),
  /** Conversions waiting for a free run at most; a request beyond is answered 429. */
  MAX_QUEUED_CONVERSIONS: z.coerce.number().int().min(0).default(20),
  /** Time limit of one LibreOffice or pandoc run; its whole process group is killed at the limit. */
  CONVERSION_TIMEOUT_MS: positiveInt(120_000),
  /** Largest uploaded file, in bytes. */
  MAX_UPLOAD_BYTES: positiveInt(100 * MIB),
  /** Files one merge may join. */
  MAX_MERGE_FILES: positiveInt(20),
  /** Per-request temporary directories (uploads, profiles, results) are created here. */
  TEMP_DIR: z.string().min(1).default(tmpdir()),
});

export type Settings = z.output<typeof settingsSchema>;
