/**
 * Documents of a workspace. Adding one (an upload or a URL) records it, keeps an uploaded
 * original, and hands it to the ocr-service as a task whose id the record holds; the follower
 * (`document-follower.ts`) takes it from there. Every read goes through the access lists.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { conflict, currentTraceparent, HttpError, inTransaction } from '@pelita/kit';
import type pg from 'pg';
import type { AccessLists } from '../access/access-lists';
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import type { KnowledgeIndex } from '../retrieval/knowledge-index';
import type { Paging } from '../paging';
import type { Membership } from '../workspaces/workspaces';
import type { OcrArtifacts } from './ocr-artifacts';
import type { OcrClient, OcrOptions } from './ocr-client';
import type { Originals } from './originals';

export type DocumentState = 'queued' | 'processing' | 'done' | 'failed';

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
  processing: OcrOptions['processing'];
  type_ocr: OcrOptions['typeOcr'];
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

export interface NewDocument {
  name: string;
  folderId: string | null;
  options: OcrOptions;
}

export interface DocumentsDeps {
  pool: pg.Pool;
  access: AccessLists;
  /** Decides membership and permission: reading asks `knowledge.read`, changing `knowledge.write`. */
  workspaces: MemberCheck;
  knowledge: KnowledgeIndex;
  /** Unset (no URL_OCR): documents cannot be added (503). */
  ocr: OcrClient | undefined;
  artifacts: OcrArtifacts;
  /** Unset (no S3 settings): uploads are not kept, so they cannot be re-processed. */
  originals: Originals | undefined;
  /** Deletes a document everywhere (`src/deletion/`). */
  deletions: { document(id: string): Promise<void> };
}

const documentNotFound = (id: string) =>
  new HttpError(404, 'document_not_found', `The document ${id} does not exist`);

export function createDocuments(deps: DocumentsDeps) {
  const { pool, access } = deps;
  const ocr = () => {
    if (!deps.ocr) {
      throw new HttpError(503, 'ocr_not_configured', 'No OCR service is configured (URL_OCR)');
    }
    return deps.ocr;
  };

  async function find(member: Membership, id: string): Promise<DocumentRecord> {
    await access.requireVisible(member, 'document', id);
    const { rows } = await pool.query<DocumentRecord>('select * from documents where id = $1', [
      id,
    ]);
    if (!rows[0]) throw documentNotFound(id);
    return rows[0];
  }

  async function checkFolder(member: Membership, folderId: string | null): Promise<void> {
    if (folderId) await access.requireVisible(member, 'folder', folderId);
  }

  /** Records the document (creator on its access list) and sends the task; nothing is left when sending fails. */
  async function add(
    member: Membership,
    input: NewDocument & { source: 'upload' | 'url'; url?: string; size?: number },
    send: (id: string) => Promise<{ originalKey?: string }>,
  ): Promise<DocumentRecord> {
    ocr();
    await checkFolder(member, input.folderId);
    const id = randomUUID();
    await inTransaction(pool, async (client) => {
      await client.query(
        `insert into documents (id, task_id, workspace_id, folder_id, name, source, url, size_bytes,
           processing, type_ocr, created_by, traceparent)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          id,
          id,
          member.workspaceId,
          input.folderId,
          input.name,
          input.source,
          input.url ?? null,
          input.size ?? null,
          input.options.processing,
          input.options.typeOcr,
          member.userId,
          currentTraceparent() ?? null,
        ],
      );
      await access.grantCreator(member, 'document', id, client);
    });
    try {
      const { originalKey } = await send(id);
      await pool.query(
        'update documents set original_key = $2, submitted_at = now(), updated_at = now() where id = $1',
        [id, originalKey ?? null],
      );
    } catch (err) {
      // Through a deletion job: a kept original goes too, and a task the ocr-service took before
      // failing to answer is waited for and removed.
      await deps.deletions.document(id);
      throw err;
    }
    return find(member, id);
  }

  const reader = (actor: Actor) => memberOf(deps.workspaces, actor, 'knowledge.read');
  const writer = (actor: Actor) => memberOf(deps.workspaces, actor, 'knowledge.write');

  return {
    find: async (actor: Actor, id: string) => find(await reader(actor), id),

    /** Refuses (404, 403) an actor who may not add documents: asked before an upload is read. */
    mayAdd: async (actor: Actor): Promise<void> => void (await writer(actor)),

    async list(
      actor: Actor,
      filter: Paging & { folderId?: string; state?: DocumentState },
    ): Promise<{ rows: DocumentRecord[]; total: number }> {
      const member = await reader(actor);
      const values: unknown[] = [member.workspaceId];
      const conditions = [
        'd.workspace_id = $1',
        access.visibleSql(member, 'document', 'd', values),
      ];
      if (filter.folderId) {
        values.push(filter.folderId);
        conditions.push(`d.folder_id = $${values.length}`);
      }
      if (filter.state) {
        values.push(filter.state);
        conditions.push(`d.state = $${values.length}`);
      }
      const where = conditions.join(' and ');
      const { rows: count } = await pool.query<{ n: number }>(
        `select count(*)::int as n from documents d where ${where}`,
        values,
      );
      values.push(filter.limit, (filter.page - 1) * filter.limit);
      const { rows } = await pool.query<DocumentRecord>(
        `select d.* from documents d where ${where} order by d.created_at desc, d.id
         limit $${values.length - 1} offset $${values.length}`,
        values,
      );
      return { rows, total: count[0]?.n ?? 0 };
    },

    async upload(
      actor: Actor,
      file: { path: string; name: string; size: number },
      input: NewDocument,
    ): Promise<DocumentRecord> {
      const member = await writer(actor);
      return add(member, { ...input, source: 'upload', size: file.size }, async (id) => {
        const originalKey = await deps.originals?.put(id, file.path);
        // Recorded before sending, so a failed send removes it with the record.
        if (originalKey) {
          await pool.query('update documents set original_key = $2 where id = $1', [
            id,
            originalKey,
          ]);
        }
        await ocr().submitFile(id, { path: file.path, name: input.name }, input.options);
        return originalKey ? { originalKey } : {};
      });
    },

    async fromUrl(actor: Actor, url: string, input: NewDocument): Promise<DocumentRecord> {
      const member = await writer(actor);
      return add(member, { ...input, source: 'url', url }, async (id) => {
        await ocr().submitUrl(id, url, input.options);
        return {};
      });
    },

    async update(
      actor: Actor,
      id: string,
      changes: { name?: string; folderId?: string | null },
    ): Promise<DocumentRecord> {
      const member = await writer(actor);
      await find(member, id);
      if (changes.folderId) await checkFolder(member, changes.folderId);
      await pool.query(
        `update documents set name = coalesce($2, name),
           folder_id = case when $3 then $4::uuid else folder_id end, updated_at = now()
         where id = $1`,
        [id, changes.name ?? null, changes.folderId !== undefined, changes.folderId ?? null],
      );
      return find(member, id);
    },

    /** Processes the document again as a new task; its old chunks and summary go first. */
    async reprocess(
      actor: Actor,
      id: string,
      options?: Partial<OcrOptions>,
    ): Promise<DocumentRecord> {
      const member = await writer(actor);
      const document = await find(member, id);
      if (document.state === 'queued' || document.state === 'processing') {
        throw conflict('The document is still being processed');
      }
      if (document.source === 'upload' && !document.original_key) {
        throw conflict('The uploaded original was not kept (no object storage): upload it again');
      }
      const attempt = document.attempt + 1;
      const taskId = `${id}-${attempt}`;
      const chosen: OcrOptions = {
        processing: options?.processing ?? document.processing,
        typeOcr: options?.typeOcr ?? document.type_ocr,
      };
      if (document.source === 'upload') {
        const dir = await mkdtemp(join(tmpdir(), 'core-reprocess-'));
        try {
          const path = join(dir, 'original');
          await deps.originals!.download(document.original_key!, path);
          await ocr().submitFile(taskId, { path, name: document.name }, chosen);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      } else {
        await ocr().submitUrl(taskId, document.url!, chosen);
      }
      await forgetResults(document);
      await pool.query(
        `update documents set task_id = $2, attempt = $3, processing = $4, type_ocr = $5,
           state = 'queued', stage = 'pending', progress_pct = 0, error = null, error_code = null,
           pdf_url = null, summary_state = 'pending', finished_at = null, lease_until = null,
           submitted_at = now(), updated_at = now(), traceparent = $6
         where id = $1`,
        [id, taskId, attempt, chosen.processing, chosen.typeOcr, currentTraceparent() ?? null],
      );
      return find(member, id);
    },

    /**
     * Deletes the document and everything made of it — passages, chunks, summaries, the stored
     * PDF and original — through a deletion job: the record is gone at once, and what a failing
     * OpenSearch or object storage keeps is removed when it is back (`src/deletion/`).
     */
    async remove(actor: Actor, id: string): Promise<void> {
      const member = await writer(actor);
      await find(member, id);
      await deps.deletions.document(id);
    },
  };

  async function forgetResults(document: DocumentRecord): Promise<void> {
    await deps.knowledge.remove('document', document.id);
    await deps.artifacts.remove(document.task_id);
    await pool.query('delete from document_ocr_results where document_id = $1', [document.id]);
    await pool.query('delete from document_summaries where document_id = $1', [document.id]);
  }
}

export type Documents = ReturnType<typeof createDocuments>;
