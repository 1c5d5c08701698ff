/**
 * The result documents' shapes: `POST /api/v1/documents` (a document ingested without OCR) and
 * `GET /api/v1/pdfs/{id}` (stored chunks, paged).
 */
import { z } from 'zod';
import { taskId } from './task-schemas';

/** Pages of one ingested document at most (5 per chunk: 2000 chunks). */
export const MAX_PAGES = 10_000;
/** OpenSearch's default `index.max_result_window`: a page must end within it. */
const RESULT_WINDOW = 10_000;

const page = z.number().int().min(1).max(MAX_PAGES);
const jsonObject = z.record(z.string(), z.unknown());

export const DocumentBody = z
  .object({
    id: taskId.optional().meta({
      description:
        'The `pdf_id` (`^[A-Za-z0-9._-]{1,128}$`); an id ingested before has its chunks ' +
        'replaced. Default: a new UUID.',
    }),
    pdf_name: z.string().min(1).max(255),
    text: z
      .string()
      .optional()
      .meta({
        description:
          'Plain text; pages separated by form feeds (`\\f`, as pdftotext writes them) become one ' +
          '`content_list` item each (`type: text`, pages from 1; blank pages left out)',
      }),
    content_list: z
      .array(z.object({ page, type: z.string().min(1).max(100), content: z.string() }))
      .optional(),
    md_content_list: z.array(z.object({ page, markdown: z.string() })).optional(),
    metadata_document: jsonObject.optional(),
  })
  .refine(
    (body) => body.text !== undefined || body.content_list || body.md_content_list,
    'give `text`, `content_list` or `md_content_list`',
  )
  .refine(
    (body) => body.text === undefined || body.content_list === undefined,
    '`text` is a shorthand for `content_list`: give one of them',
  );
export type DocumentBody = z.infer<typeof DocumentBody>;

export const DocumentIngested = z.object({
  pdf_id: z.string(),
  pdf_name: z.string(),
  /** Chunk documents stored (5 pages each). */
  chunks: z.number().int(),
  /** The result index they are in. */
  index: z.string(),
});

export const DocumentParams = z.object({ id: taskId });

export const ChunkPageQuery = z
  .object({
    page: z.coerce
      .number()
      .int()
      .min(1)
      .max(RESULT_WINDOW)
      .default(1)
      .meta({ description: 'Page, from 1 (default 1)' }),
    size: z.coerce
      .number()
      .int()
      .min(1)
      .max(100)
      .default(10)
      .meta({ description: 'Chunks per page, 1 to 100 (default 10)' }),
  })
  .refine((query) => query.page * query.size <= RESULT_WINDOW, {
    message: `page × size must not exceed ${RESULT_WINDOW}`,
    path: ['page'],
  });

/** A stored chunk, exactly the seed's fields (`src/results/chunks.ts` builds them). */
const ChunkDocumentSchema = z.object({
  id: z.string(),
  chunk_number: z.number().int(),
  pdf_name: z.string(),
  pdf_id: z.string(),
  parse_method: z.literal('auto'),
  uploaded_at: z.string(),
  content_list: z.array(z.object({ page: z.number(), type: z.string(), content: z.string() })),
  md_content_list: z.array(z.object({ page: z.number(), markdown: z.string() })),
  output_path: z.string(),
  output_pdf_file: z.string().optional(),
  metadata_document: jsonObject.optional(),
});

export const ChunkPageSchema = z.object({
  page: z.number().int(),
  size: z.number().int(),
  total_documents: z.number().int(),
  total_pages: z.number().int(),
  documents: z.array(ChunkDocumentSchema),
});
