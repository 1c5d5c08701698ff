/** The request bodies of MinerU's v4 API that the double accepts, and its control API's. */
import { z } from 'zod';

/**
 * The OCR languages MinerU's pipeline accepts (PaddleOCR's groups and the codes MinerU maps onto
 * them); `ch` is MinerU's default. A client sending anything else gets a parameter error, so a
 * test sees a wrong mapping instead of a silently ignored option.
 */
const MINERU_LANGUAGES = [
  ...['ch', 'ch_server', 'ch_lite', 'chinese_cht', 'en', 'korean', 'japan', 'ta', 'te', 'ka'],
  ...['th', 'el', 'latin', 'arabic', 'east_slavic', 'cyrillic', 'devanagari'],
  // Latin script (the `latin` group), Indonesian and Malay among them.
  ...['af', 'az', 'bs', 'cs', 'cy', 'da', 'de', 'es', 'et', 'fr', 'ga', 'hr', 'hu', 'id', 'is'],
  ...['it', 'ku', 'la', 'lt', 'lv', 'mi', 'ms', 'mt', 'nl', 'no', 'oc', 'pi', 'pl', 'pt', 'ro'],
  ...['rs_latin', 'sk', 'sl', 'sq', 'sv', 'sw', 'tl', 'tr', 'uz', 'vi', 'french', 'german'],
  ...['ar', 'fa', 'ug', 'ur', 'ru', 'rs_cyrillic', 'be', 'bg', 'uk', 'mn', 'hi', 'mr', 'ne'],
] as const;

/** MinerU's models: `pipeline` (the default; the only one `is_ocr` and `language` act on). */
const MINERU_MODELS = ['pipeline', 'vlm', 'MinerU-HTML'] as const;

const extractionOptions = {
  model_version: z.enum(MINERU_MODELS).optional(),
  enable_formula: z.boolean().optional(),
  enable_table: z.boolean().optional(),
  language: z.enum(MINERU_LANGUAGES).optional(),
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
export const UploadBatchSchema = z.strictObject({
  files: z.array(z.strictObject({ name: z.string().min(1).max(255), ...fileOptions })).min(1),
  ...extractionOptions,
});

/** `POST /api/v4/extract/task` */
export const UrlTaskSchema = z.strictObject({
  url: z.string().min(1),
  ...fileOptions,
  ...extractionOptions,
});

/** `POST /api/v4/extract/task/batch` */
export const UrlBatchSchema = z.strictObject({
  files: z.array(z.strictObject({ url: z.string().min(1), ...fileOptions })).min(1),
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
