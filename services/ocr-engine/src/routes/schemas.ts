/**
 * The self-hosted MinerU API's shapes: the `POST /tasks` form (its field names and defaults),
 * the task status payload and the result. Validation and the OpenAPI document come from here.
 */
import { uploadedFile } from '@pelita/kit';
import { z } from 'zod';
import { TaskRecordSchema } from '../tasks/task-record';

// Form fields arrive as text; MinerU (FastAPI) accepts these spellings of a boolean.
const formBoolean = (fallback: boolean) =>
  z
    .enum(['true', 'false', 'True', 'False', '1', '0', 'yes', 'no', 'on', 'off'])
    .transform((value) => ['true', '1', 'yes', 'on'].includes(value.toLowerCase()))
    .default(fallback);
const repeated = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : [v]));

export const TaskForm = z.object({
  files: z
    .array(uploadedFile('a file is required', 'A PDF or an image'))
    .min(1, 'send at least one file in the field `files`')
    .meta({ description: 'PDF or image files (PNG, JPEG, GIF, BMP, TIFF, WebP)' }),
  lang_list: repeated.default(['ch']).meta({
    description: "Recorded; OCR uses the engine's OCR_LANGUAGES (see the README)",
  }),
  backend: z.string().max(64).default('pipeline').meta({
    description: 'Recorded and reported; every backend runs the same poppler + tesseract pipeline',
  }),
  parse_method: z.enum(['auto', 'txt', 'ocr']).default('auto').meta({
    description:
      'auto: text layer where a page has one, OCR otherwise; txt: text layer only; ocr: OCR every page',
  }),
  formula_enable: formBoolean(true).meta({ description: 'Accepted; formulas are read as text' }),
  table_enable: formBoolean(true).meta({ description: 'Accepted; tables are read as text' }),
  image_analysis: formBoolean(false).meta({
    description: "Describe embedded images with the vision model (the seed's `representasi`)",
  }),
  max_images: z.coerce.number().int().min(0).max(100).default(3).meta({
    description: "Pelita: images described at most per file (the seed's `representasi_count`)",
  }),
  server_url: z.string().optional().meta({ description: 'Accepted and ignored (no remote model)' }),
  return_md: formBoolean(true),
  return_middle_json: formBoolean(false).meta({
    description: 'Accepted; no middle JSON is produced',
  }),
  return_model_output: formBoolean(false).meta({
    description: 'Accepted; no model output is produced',
  }),
  return_content_list: formBoolean(false),
  return_images: formBoolean(false),
  response_format_zip: formBoolean(false).meta({
    description: 'Only `false` is supported (JSON results)',
  }),
  return_original_file: formBoolean(false).meta({
    description: 'Accepted; the original is not returned',
  }),
  start_page_id: z.coerce.number().int().min(0).default(0),
  end_page_id: z.coerce.number().int().min(0).default(99999),
});
export type TaskForm = z.output<typeof TaskForm>;

export const TaskIdParams = z.object({ task_id: z.string().min(1).max(128) });

/** The status payload: the task's record without what only the engine needs, plus its links. */
export const TaskStatus = TaskRecordSchema.omit({
  options: true,
  uploads: true,
  traceparent: true,
}).extend({
  status_url: z.string(),
  result_url: z.string(),
  queued_ahead: z.number().int().optional(),
});
export const TaskSubmitted = TaskStatus.extend({ message: z.string() });
export const TaskNotFinished = TaskStatus.extend({ message: z.string() });

export const TaskResultBody = z.object({
  backend: z.string(),
  version: z.string(),
  results: z.record(
    z.string(),
    z.object({
      md_content: z.string().optional(),
      content_list: z.string().optional().meta({
        description:
          'JSON text of the content list, as MinerU returns it: items `{type, text, page_idx, bbox}` and `{type: "image", img_path, image_caption, image_footnote, page_idx, bbox}`',
      }),
      images: z.record(z.string(), z.string()).optional().meta({ description: 'name → data URL' }),
    }),
  ),
});
