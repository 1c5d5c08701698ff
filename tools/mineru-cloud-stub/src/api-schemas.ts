/** The request bodies of MinerU's v4 API that the double accepts, and its control API's. */
import { z } from 'zod';

const extractionOptions = {
  model_version: z.string().optional(),
  enable_formula: z.boolean().optional(),
  enable_table: z.boolean().optional(),
  language: z.string().optional(),
  extra_formats: z.array(z.enum(['docx', 'html', 'latex'])).optional(),
  callback: z.string().optional(),
  seed: z.string().optional(),
};

const fileOptions = {
  data_id: z.string().max(128).optional(),
  is_ocr: z.boolean().optional(),
  page_ranges: z.string().optional(),
};

/** `POST /api/v4/file-urls/batch` */
export const UploadBatchSchema = z.object({
  files: z.array(z.object({ name: z.string().min(1).max(255), ...fileOptions })).min(1),
  ...extractionOptions,
});

/** `POST /api/v4/extract/task` */
export const UrlTaskSchema = z.object({
  url: z.string().min(1),
  ...fileOptions,
  ...extractionOptions,
});

/** `POST /api/v4/extract/task/batch` */
export const UrlBatchSchema = z.object({
  files: z.array(z.object({ url: z.string().min(1), ...fileOptions })).min(1),
  ...extractionOptions,
});

export const OptionsPatchSchema = z
  .object({
    queueMs: z.number().int().min(0),
    pageMs: z.number().int().min(0),
    convertingMs: z.number().int().min(0),
    maxFilesPerBatch: z.number().int().min(1),
    maxPages: z.number().int().min(1),
    maxFileBytes: z.number().int().min(1),
    zipMethod: z.enum(['deflate', 'store']),
  })
  .partial()
  .strict();
export type OptionsPatch = z.infer<typeof OptionsPatchSchema>;
