/**
 * The SQL of topics and the documents in them. Reads that cross access lists take the caller's
 * visibility filter as an argument (`Visibility`), so none can be written without one.
 */
import type pg from 'pg';
import type { Listing } from '../access/access-lists';
import type { Paging } from '../paging';
import { readPage } from '../db/page-query';
import { rowWrites } from '../db/row-writes';

export interface TopicRecord {
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  document_count: number;
}

export interface TopicDocumentRow {
  id: string;
  name: string;
  state: string;
  added_at: Date;
}

/** A SQL condition that `alias.id` is visible to the caller (appends its values to `values`). */
export type Visibility = (alias: string, values: unknown[]) => string;

const COLUMNS = `t.*, (select count(*)::int from topic_documents td where td.topic_id = t.id)
  as document_count`;

export function createTopicRepository(pool: pg.Pool) {
  const writes = rowWrites<Pick<TopicRecord, 'name' | 'description'>>('topics', [
    'name',
    'description',
  ]);
  return {
    /** How `access.page` lists topics: by name. */
    listing: { alias: 't', columns: COLUMNS, orderBy: 't.name, t.id' } satisfies Listing,

    async byId(id: string): Promise<TopicRecord | undefined> {
      const { rows } = await pool.query<TopicRecord>(
        `select ${COLUMNS} from topics t where t.id = $1`,
        [id],
      );
      return rows[0];
    },

    insert: (
      client: pg.PoolClient,
      row: Pick<TopicRecord, 'id' | 'workspace_id' | 'name' | 'description' | 'created_by'>,
    ) =>
      writes.insert(client, row.id, { workspaceId: row.workspace_id, userId: row.created_by }, row),

    async update(id: string, changes: { name?: string; description?: string }): Promise<void> {
      await pool.query(
        `update topics set name = coalesce($2, name), description = coalesce($3, description),
           updated_at = now() where id = $1`,
        [id, changes.name ?? null, changes.description ?? null],
      );
    },

    async remove(id: string): Promise<void> {
      await pool.query('delete from topics where id = $1', [id]);
    },

    /** A page of the topic's documents passing `visible` (on `d`), newest first. */
    async documents(
      id: string,
      visible: Visibility,
      paging: Paging,
    ): Promise<{ rows: TopicDocumentRow[]; total: number }> {
      const values: unknown[] = [id];
      const where = ['td.topic_id = $1', visible('d', values)];
      return readPage<TopicDocumentRow>(
        pool,
        {
          columns: 'd.id, d.name, d.state, td.added_at',
          from: 'topic_documents td join documents d on d.id = td.document_id',
          where,
          values,
          orderBy: 'td.added_at desc, d.id',
        },
        paging,
      );
    },

    async addDocuments(id: string, documentIds: string[], addedBy: string): Promise<void> {
      await pool.query(
        `insert into topic_documents (topic_id, document_id, added_by)
         select $1, unnest($2::uuid[]), $3 on conflict do nothing`,
        [id, documentIds, addedBy],
      );
      await pool.query('update topics set updated_at = now() where id = $1', [id]);
    },

    /** Whether the document was in the topic. */
    async removeDocument(id: string, documentId: string): Promise<boolean> {
      const { rowCount } = await pool.query(
        'delete from topic_documents where topic_id = $1 and document_id = $2',
        [id, documentId],
      );
      return (rowCount ?? 0) > 0;
    },

    /** The documents of these topics of the workspace passing both filters (topic `t`, document `d`). */
    async documentsOf(
      workspaceId: string,
      topicIds: string[],
      visible: { topic: Visibility; document: Visibility },
    ): Promise<string[]> {
      const values: unknown[] = [workspaceId, topicIds];
      const { rows } = await pool.query<{ document_id: string }>(
        `select distinct td.document_id from topic_documents td
         join topics t on t.id = td.topic_id join documents d on d.id = td.document_id
         where t.workspace_id = $1 and td.topic_id = any($2::uuid[])
           and ${visible.topic('t', values)} and ${visible.document('d', values)}`,
        values,
      );
      return rows.map((row) => row.document_id);
    },
  };
}

export type TopicRepository = ReturnType<typeof createTopicRepository>;
