/** The SQL of app keys: records, their sources, and the sources resolved to documents. */
import { inTransaction } from '@pelita/kit';
import type pg from 'pg';
import type { Paging } from '../paging';

export const SOURCE_TYPES = ['document', 'folder', 'topic', 'audio'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

/** One source a key may answer from; folders and topics stand for their documents. */
export interface KeySource {
  type: SourceType;
  id: string;
}

export interface AppKeyRow {
  id: string;
  workspace_id: string;
  name: string;
  prefix: string;
  secret_hash: Buffer;
  created_by: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  reads_sessions_of: string[];
}

export function createAppKeyRepository(pool: pg.Pool) {
  return {
    async insert(row: Omit<AppKeyRow, 'created_at' | 'last_used_at' | 'revoked_at'>) {
      const { rows } = await pool.query<AppKeyRow>(
        `insert into app_keys (id, workspace_id, name, prefix, secret_hash, created_by,
           reads_sessions_of)
         values ($1, $2, $3, $4, $5, $6, $7) returning *`,
        [
          row.id,
          row.workspace_id,
          row.name,
          row.prefix,
          row.secret_hash,
          row.created_by,
          row.reads_sessions_of,
        ],
      );
      return rows[0]!;
    },

    async page(workspaceId: string, paging: Paging) {
      const { rows } = await pool.query<AppKeyRow>(
        `select * from app_keys where workspace_id = $1
         order by created_at desc, id limit $2 offset $3`,
        [workspaceId, paging.limit, (paging.page - 1) * paging.limit],
      );
      const { rows: count } = await pool.query<{ n: number }>(
        'select count(*)::int as n from app_keys where workspace_id = $1',
        [workspaceId],
      );
      return { rows, total: count[0]?.n ?? 0 };
    },

    async find(workspaceId: string, id: string): Promise<AppKeyRow | undefined> {
      const { rows } = await pool.query<AppKeyRow>(
        'select * from app_keys where workspace_id = $1 and id = $2',
        [workspaceId, id],
      );
      return rows[0];
    },

    async revoke(workspaceId: string, id: string): Promise<AppKeyRow | undefined> {
      const { rows } = await pool.query<AppKeyRow>(
        `update app_keys set revoked_at = coalesce(revoked_at, now())
         where workspace_id = $1 and id = $2 returning *`,
        [workspaceId, id],
      );
      return rows[0];
    },

    /** The live key of a prefix. */
    async liveByPrefix(prefix: string): Promise<AppKeyRow | undefined> {
      const { rows } = await pool.query<AppKeyRow>(
        'select * from app_keys where prefix = $1 and revoked_at is null',
        [prefix],
      );
      return rows[0];
    },

    async touch(id: string): Promise<void> {
      await pool.query('update app_keys set last_used_at = now() where id = $1', [id]);
    },

    /** The keys of the workspace among `ids` (to check a `reads_sessions_of` list). */
    async idsIn(workspaceId: string, ids: string[]): Promise<string[]> {
      const { rows } = await pool.query<{ id: string }>(
        'select id from app_keys where workspace_id = $1 and id = any($2::uuid[])',
        [workspaceId, ids],
      );
      return rows.map((row) => row.id);
    },

    async sources(keyIds: string[]): Promise<Map<string, KeySource[]>> {
      const { rows } = await pool.query<{ app_key_id: string; type: SourceType; id: string }>(
        `select app_key_id, source_type as type, source_id as id from app_key_sources
         where app_key_id = any($1::uuid[]) order by source_type, source_id`,
        [keyIds],
      );
      const byKey = new Map<string, KeySource[]>(keyIds.map((id) => [id, []]));
      for (const row of rows) byKey.get(row.app_key_id)?.push({ type: row.type, id: row.id });
      return byKey;
    },

    /** Replaces the key's sources and the keys whose sessions it reads, in one transaction. */
    async setScope(keyId: string, sources: KeySource[], readsSessionsOf: string[]) {
      await inTransaction(pool, async (client) => {
        await client.query('delete from app_key_sources where app_key_id = $1', [keyId]);
        await client.query(
          `insert into app_key_sources (app_key_id, source_type, source_id)
           select $1, unnest($2::text[]), unnest($3::uuid[])`,
          [keyId, sources.map((s) => s.type), sources.map((s) => s.id)],
        );
        await client.query('update app_keys set reads_sessions_of = $2 where id = $1', [
          keyId,
          readsSessionsOf,
        ]);
      });
    },

    /**
     * The key's sources as documents and audios of its workspace: named documents, the documents
     * of named folders (and their sub-folders) and of named topics, named audios.
     */
    async resolvedScope(keyId: string, workspaceId: string) {
      const { rows } = await pool.query<{ type: 'document' | 'audio'; id: string }>(
        `with recursive s as (select source_type, source_id from app_key_sources where app_key_id = $1),
           folders as (
             select f.id from document_folders f join s on s.source_type = 'folder' and f.id = s.source_id
             where f.workspace_id = $2
             union select c.id from document_folders c join folders p on c.parent_id = p.id)
         select 'document' as type, d.id::text from documents d where d.workspace_id = $2 and (
             d.id in (select source_id from s where source_type = 'document')
             or d.folder_id in (select id from folders)
             or d.id in (select td.document_id from topic_documents td
                         join s on s.source_type = 'topic' and td.topic_id = s.source_id))
         union all
         select 'audio', a.id::text from audios a where a.workspace_id = $2
           and a.id in (select source_id from s where source_type = 'audio')`,
        [keyId, workspaceId],
      );
      return {
        document: rows.filter((r) => r.type === 'document').map((r) => r.id),
        audio: rows.filter((r) => r.type === 'audio').map((r) => r.id),
      };
    },
  };
}

export type AppKeyRepository = ReturnType<typeof createAppKeyRepository>;
