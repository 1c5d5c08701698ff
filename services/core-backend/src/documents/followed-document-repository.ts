/**
 * The SQL of the document follower: leasing the documents it follows, recording their progress,
 * and writing what OCR made of them while the document still runs the task (`whileCurrent`).
 */
import { inTransaction } from '@pelita/kit';
import type pg from 'pg';
import type { DocumentRecord } from './document-repository';

/** What is written for a document that still runs its task, in one transaction. */
export interface CurrentDocument {
  storeOcrResult(result: {
    resultIndex: string;
    chunkIds: string[];
    pages: number;
    characters: number;
    pdfUrl: string | null;
  }): Promise<void>;
  storeSummary(summary: {
    summary: string;
    keyPoints: unknown;
    topics: unknown;
    namedEntities: unknown;
    summaryIndex: string;
    chunkSummaryIndex: string;
  }): Promise<void>;
}

export function createFollowedDocumentRepository(pool: pg.Pool) {
  return {
    /**
     * Takes up to `batch` documents to follow for `leaseSeconds` (`for update skip locked`, so
     * replicas share them): those running, finished ones whose summary may come, and those never
     * handed over whose replica has had `leaseSeconds` to do so.
     */
    async lease(leaseSeconds: number, batch: number): Promise<DocumentRecord[]> {
      const { rows } = await pool.query<DocumentRecord>(
        `update documents set lease_until = now() + make_interval(secs => $1)
         where id in (
           select id from documents
           where (state in ('queued', 'processing') or (state = 'done' and summary_state = 'pending'))
             and (submitted_at is not null or created_at < now() - make_interval(secs => $3))
             and (lease_until is null or lease_until < now())
           order by updated_at limit $2 for update skip locked)
         returning *`,
        [leaseSeconds, batch, leaseSeconds],
      );
      return rows;
    },

    /** Sets `fields` and lets the lease go, only while the document still runs `taskId`. */
    async update(id: string, taskId: string, fields: Record<string, unknown>): Promise<void> {
      const names = Object.keys(fields);
      const sets = names.map((name, i) => `${name} = $${i + 3}`);
      await pool.query(
        `update documents set ${[...sets, 'lease_until = null', 'updated_at = now()'].join(', ')}
         where id = $1 and task_id = $2`,
        [id, taskId, ...names.map((name) => fields[name])],
      );
    },

    /** Lets the next round (of any replica) take the document again. */
    async release(id: string): Promise<void> {
      await pool.query('update documents set lease_until = null where id = $1', [id]);
    },

    /**
     * Runs `write` in a transaction holding the document's row while it still runs `taskId`;
     * false when it is gone or re-processed meanwhile.
     */
    whileCurrent(
      document: Pick<DocumentRecord, 'id' | 'task_id'>,
      write: (current: CurrentDocument) => Promise<void>,
    ): Promise<boolean> {
      return inTransaction(pool, async (client) => {
        const { rows } = await client.query(
          'select 1 from documents where id = $1 and task_id = $2 for update',
          [document.id, document.task_id],
        );
        if (rows.length === 0) return false;
        await write(currentDocument(client, document.id));
        return true;
      });
    },
  };
}

function currentDocument(client: pg.PoolClient, id: string): CurrentDocument {
  return {
    async storeOcrResult(result) {
      await client.query(
        `insert into document_ocr_results (document_id, result_index, chunk_ids, pages, characters)
         values ($1, $2, $3, $4, $5)
         on conflict (document_id) do update set result_index = excluded.result_index,
           chunk_ids = excluded.chunk_ids, pages = excluded.pages, characters = excluded.characters,
           collected_at = now()`,
        [id, result.resultIndex, result.chunkIds, result.pages, result.characters],
      );
      await client.query(
        `update documents set state = 'done', stage = 'done', progress_pct = 100, pdf_url = $2,
           finished_at = now(), lease_until = null, updated_at = now()
         where id = $1`,
        [id, result.pdfUrl],
      );
    },
    async storeSummary(summary) {
      await client.query(
        `insert into document_summaries (document_id, summary, key_points, topics, named_entities,
           summary_index, chunk_summary_index)
         values ($1, $2, $3, $4, $5, $6, $7)
         on conflict (document_id) do update set summary = excluded.summary,
           key_points = excluded.key_points, topics = excluded.topics,
           named_entities = excluded.named_entities, collected_at = now()`,
        [
          id,
          summary.summary,
          JSON.stringify(summary.keyPoints),
          JSON.stringify(summary.topics),
          JSON.stringify(summary.namedEntities),
          summary.summaryIndex,
          summary.chunkSummaryIndex,
        ],
      );
      await client.query(
        `update documents set summary_state = 'done', lease_until = null, updated_at = now()
         where id = $1`,
        [id],
      );
    },
  };
}

export type FollowedDocumentRepository = ReturnType<typeof createFollowedDocumentRepository>;
