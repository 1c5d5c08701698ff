/** The SQL of documents and of what processing made of them (OCR result record, summary). */
import type pg from 'pg';
import type { Listing } from '../access/access-lists';
import { renameOrMove } from '../db/row-writes';

export type DocumentState = 'queued' | 'processing' | 'done' | 'failed';
/** How the document is read (`OcrOptions` of the OCR client, as stored). */
type Processing = 'cloud' | 'local';
type TypeOcr = 'ekstrak_only' | 'representasi';

export interface DocumentRecord {
  id: string;
  workspace_id: string;
  folder_id: string | null;
  task_id: string;
  attempt: number;
  original_key: string | null;
  name: string;
  source: 'upload' | 'url';
  url: string | null;
  size_bytes: string | null;
  processing: Processing;
  type_ocr: TypeOcr;
  state: DocumentState;
  stage: string;
  progress_pct: number;
  error: string | null;
  error_code: number | null;
  pdf_url: string | null;
  summary_state: 'pending' | 'done' | 'none';
  submitted_at: Date | null;
  /** The trace of the request that added or last re-processed it (W3C), when traced. */
  traceparent: string | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

export interface OcrResultRow {
  result_index: string;
  pages: number;
  characters: number;
  chunk_ids: string[];
}

export interface SummaryRow {
  summary: string;
  key_points: unknown;
  topics: unknown;
  named_entities: unknown;
  summary_index: string;
  chunk_summary_index: string;
}

export type NewDocumentRow = Pick<
  DocumentRecord,
  | 'id'
  | 'workspace_id'
  | 'folder_id'
  | 'name'
  | 'source'
  | 'url'
  | 'processing'
  | 'type_ocr'
  | 'created_by'
  | 'traceparent'
> & { size_bytes: number | null };

export function createDocumentRepository(pool: pg.Pool) {
  return {
    /** How `access.page` lists documents: newest first, in a folder or a state when asked. */
    listing: (filter: { folderId?: string; state?: DocumentState }): Listing => ({
      alias: 'd',
      orderBy: 'd.created_at desc, d.id',
      filters: [
        [(ref) => `d.folder_id = ${ref}`, filter.folderId],
        [(ref) => `d.state = ${ref}`, filter.state],
      ],
    }),

    async byId(id: string): Promise<DocumentRecord | undefined> {
      const { rows } = await pool.query<DocumentRecord>('select * from documents where id = $1', [
        id,
      ]);
      return rows[0];
    },

    /** A new document, its first task id its own id. */
    async insert(client: pg.PoolClient, row: NewDocumentRow): Promise<void> {
      await client.query(
        `insert into documents (id, task_id, workspace_id, folder_id, name, source, url, size_bytes,
           processing, type_ocr, created_by, traceparent)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          row.id,
          row.id,
          row.workspace_id,
          row.folder_id,
          row.name,
          row.source,
          row.url,
          row.size_bytes,
          row.processing,
          row.type_ocr,
          row.created_by,
          row.traceparent,
        ],
      );
    },

    async keptOriginal(id: string, originalKey: string): Promise<void> {
      await pool.query('update documents set original_key = $2 where id = $1', [id, originalKey]);
    },

    /** A renewed link to the searchable PDF, unless the document was re-processed meanwhile. */
    async renewPdfUrl(id: string, taskId: string, pdfUrl: string): Promise<void> {
      await pool.query(
        `update documents set pdf_url = $3 where id = $1 and task_id = $2 and state = 'done'`,
        [id, taskId, pdfUrl],
      );
    },

    async submitted(id: string, originalKey: string | null): Promise<void> {
      await pool.query(
        'update documents set original_key = $2, submitted_at = now(), updated_at = now() where id = $1',
        [id, originalKey],
      );
    },

    update: (id: string, changes: { name?: string; folderId?: string | null }) =>
      renameOrMove(pool, { table: 'documents', placeColumn: 'folder_id' }, id, {
        name: changes.name,
        place: changes.folderId,
      }),

    /** Queues the document again as the task `taskId`, its results cleared. */
    async requeue(
      id: string,
      task: {
        taskId: string;
        attempt: number;
        options: { processing: Processing; typeOcr: TypeOcr };
        traceparent: string | null;
      },
    ): Promise<void> {
      await pool.query(
        `update documents set task_id = $2, attempt = $3, processing = $4, type_ocr = $5,
           state = 'queued', stage = 'pending', progress_pct = 0, error = null, error_code = null,
           pdf_url = null, summary_state = 'pending', finished_at = null, lease_until = null,
           submitted_at = now(), updated_at = now(), traceparent = $6
         where id = $1`,
        [
          id,
          task.taskId,
          task.attempt,
          task.options.processing,
          task.options.typeOcr,
          task.traceparent,
        ],
      );
    },

    /** Drops the records of the OCR result and summary (their passages are the index's). */
    async forgetResults(id: string): Promise<void> {
      await pool.query('delete from document_ocr_results where document_id = $1', [id]);
      await pool.query('delete from document_summaries where document_id = $1', [id]);
    },

    async ocrResult(id: string): Promise<OcrResultRow | undefined> {
      const { rows } = await pool.query<OcrResultRow>(
        'select * from document_ocr_results where document_id = $1',
        [id],
      );
      return rows[0];
    },

    async summary(id: string): Promise<SummaryRow | undefined> {
      const { rows } = await pool.query<SummaryRow>(
        'select * from document_summaries where document_id = $1',
        [id],
      );
      return rows[0];
    },
  };
}

export type DocumentRepository = ReturnType<typeof createDocumentRepository>;
