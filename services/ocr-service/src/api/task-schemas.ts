/**
 * The task endpoints' shapes (`POST /api/v1/pdfs`, `/merge`, `/bulk`, `/bulk/upload`, the status
 * record): what validates the requests is what the OpenAPI document shows.
 */
import { ErrorBodySchema, uploadedFile, type ResponseSpec } from '@pelita/kit';
import { z } from 'zod';
import { TaskRecordSchema } from '../status/task-record';
import { PROCESSING, TYPE_OCR } from '../tasks/task-job';

/**
 * A custom task id (also a document id): safe in a Redis key, an object key and a URL path
 * segment. Dots alone (`.`, `..`) are path segments a client or proxy would resolve away.
 */
const TASK_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;
export const taskId = z
  .string()
  .regex(TASK_ID_PATTERN, 'use 1 to 128 letters, digits, `.`, `_` or `-`')
  .refine((id) => !/^\.+$/.test(id), 'an id of dots alone is not a usable path segment');

/** `url_file`: an http(s) URL; the worker downloads it under the SSRF rules. */
const httpUrl = z.url({
  protocol: /^https?$/,
  error: 'must be an http or https URL',
});

const jsonObject = z.record(z.string(), z.unknown());

/**
 * `metadata_document` as form text: a JSON object. Whitespace alone counts as absent (HTML forms
 * send their empty fields).
 */
export const metadataText = z
  .string()
  .transform((text, ctx): Record<string, unknown> | undefined => {
    if (text.trim() === '') return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'metadata_document is not JSON text' });
      return z.NEVER;
    }
    const parsed = jsonObject.safeParse(value);
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: 'metadata_document must be a JSON object' });
      return z.NEVER;
    }
    return parsed.data;
  })
  .meta({
    description:
      'JSON object stored with every chunk of the document (JSON text). With `Content-Type: ' +
      'application/json` on `POST /api/v1/pdfs`, the whole body is this object instead.',
  });

/**
 * The seed's processing options, shared by every endpoint that queues tasks: as query text
 * (numbers coerced) or in a JSON body (a number must be one).
 */
const processingOptions = (from: 'query' | 'json') => ({
  type_ocr: z.enum(TYPE_OCR).default('ekstrak_only').meta({
    description:
      '`ekstrak_only` (default): text only; `representasi`: adds descriptions of embedded images',
  }),
  representasi_count: (from === 'query' ? z.coerce.number() : z.number())
    .int()
    .min(0)
    .max(50)
    .default(3)
    .meta({
      description: 'Images described at most in `representasi` mode (0 to 50, default 3)',
    }),
  processing: z
    .enum(PROCESSING)
    .optional()
    .meta({
      description:
        'The OCR engine: `cloud` or `local`; left out, `cloud` (the default) when this install ' +
        'has it, else `local`. One not configured on this install is refused ' +
        '(400 `engine_not_configured`)',
    }),
});

export const BulkUploadQuery = z.object(processingOptions('query'));

export const PdfQuery = z.object({
  ...processingOptions('query'),
  url_file: httpUrl.optional().meta({
    description: 'URL of a PDF (http or https), instead of the `file` upload',
  }),
  task_id: taskId.optional().meta({
    description:
      'Custom task id (`^[A-Za-z0-9._-]{1,128}$`, not dots alone); a taken one is refused ' +
      '(409 `task_exists`). ' +
      'Default: a new UUID.',
  }),
});

const repeatedUrls = z
  .union([httpUrl, z.array(httpUrl)])
  .transform((value) => (Array.isArray(value) ? value : [value]));

export function mergeQuery(maxInputs: number) {
  return PdfQuery.extend({
    url_file: repeatedUrls
      .default([])
      .refine((urls) => urls.length <= maxInputs, `at most ${maxInputs} URLs`)
      .meta({
        description: 'URLs of PDFs (repeat the parameter), merged after the uploaded files',
      }),
    pdf_name: z
      .string()
      .regex(/^[^/\\]{1,251}\.pdf$/i, 'a file name (no `/` or `\\`) ending in `.pdf`')
      .default('merged.pdf')
      .meta({
        description: 'Name of the merged PDF (`pdf_name` of its chunks; default merged.pdf)',
      }),
  });
}

const fileField = uploadedFile(
  'a file is required in the multipart field `file`',
  'PDF, image (jpg, jpeg, png, bmp, gif, tiff, webp) or office file (docx, doc, pptx, ppt, xlsx, ' +
    'xls, csv, odt, ods, odp, rtf); its extension and first bytes must agree',
);

// Optional as a whole: a task given by URL needs no body.
export const PdfForm = z
  .object({
    file: fileField.optional(),
    metadata_document: metadataText.optional(),
  })
  .default({});

export function filesForm(minFiles: number, maxFiles: number) {
  const files = z
    .array(fileField)
    .min(minFiles, 'send at least one file in the field `files`')
    .max(maxFiles)
    .meta({ description: `Files (up to ${maxFiles}), in order` });
  return z.object({
    files: minFiles === 0 ? files.default([]) : files,
    metadata_document: metadataText.optional(),
  });
}

export function bulkBody(maxUrls: number) {
  return z.object({
    url_files: z
      .array(httpUrl)
      .min(1)
      .max(maxUrls)
      .meta({ description: `URLs of PDFs, one task each (1 to ${maxUrls})` }),
    ...processingOptions('json'),
    metadata_document: jsonObject
      .optional()
      .meta({ description: 'JSON object stored with every chunk of every task' }),
  });
}

export const TaskAccepted = z.object({
  task_id: z.string(),
  status: z.literal('pending'),
  processing_type: z.enum(PROCESSING),
});
export type TaskAccepted = z.infer<typeof TaskAccepted>;

const ItemError = z.object({ code: z.string(), message: z.string() });

export const BulkAnswer = z.object({
  tasks: z.array(
    z.union([
      TaskAccepted.extend({ url_file: z.string() }),
      z.object({ url_file: z.string(), error: ItemError }),
    ]),
  ),
});

export const BulkUploadAnswer = z.object({
  tasks: z.array(
    z.union([
      TaskAccepted.extend({ file_name: z.string() }),
      z.object({ file_name: z.string(), error: ItemError }),
    ]),
  ),
});

export const TaskStatusParams = z.object({ task_id: taskId });
export const TaskStatus = TaskRecordSchema;

const error = (description: string): ResponseSpec => ({ description, schema: ErrorBodySchema });

/** Errors of every endpoint that queues tasks. */
export const queueingErrors: Record<number, ResponseSpec> = {
  400: error(
    'Invalid parameters (`invalid_request`), no input (`missing_input`), both `file` and ' +
      '`url_file` (`conflicting_input`), too many inputs (`too_many_inputs`), an empty file ' +
      '(`empty_file`), or an engine not configured here (`engine_not_configured`)',
  ),
  413: error('A file exceeds MAX_UPLOAD_BYTES (`payload_too_large`)'),
  415: error(
    'Not multipart/form-data (`unsupported_media_type`), or a file whose type is not supported ' +
      'or whose bytes do not match its extension (`unsupported_file_type`)',
  ),
  429: error(
    'The task queue is full (`queue_full`, MAX_QUEUED_TASKS waiting or running); `Retry-After` ' +
      'says when to try again. Nothing was queued.',
  ),
  503: error(
    'Redis (`queue_unavailable`) or object storage (`storage_unavailable`) failed; nothing was ' +
      'left behind',
  ),
};
