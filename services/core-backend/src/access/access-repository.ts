/**
 * The SQL of access lists (`resource_access`): who is on the list of which resource, and the
 * visibility filter every listing of knowledge resources carries. What a member may see is
 * decided by the access lists (`access-lists.ts`), handed here as a `Visibility`.
 */
import { inTransaction } from '@pelita/kit';
import type pg from 'pg';
import type { Paging } from '../paging';
import { readPage, type Filter } from '../db/page-query';

export const RESOURCE_TYPES = ['document', 'folder', 'topic', 'audio', 'database', 'api'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/** The table of each type; every one has `id uuid` and `workspace_id uuid`. */
const TABLES: Record<ResourceType, string> = {
  document: 'documents',
  folder: 'document_folders',
  topic: 'topics',
  audio: 'audios',
  database: 'databases',
  api: 'apis',
};

export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/** What one member may see of one type, as decided by the access lists. */
export interface Visibility {
  workspaceId: string;
  userId: string;
  type: ResourceType;
  /** Every resource of the type in the workspace (`knowledge.all`), not only those listed. */
  all: boolean;
  /** Only these ids (an app key's scope), whatever else holds. */
  scope?: string[];
}

/** How one type is listed: its alias, columns, order, and the filters the caller chose. */
export interface Listing {
  alias: string;
  /** The columns read, `<alias>.*` when omitted. */
  columns?: string;
  orderBy: string;
  /** Conditions on a value (`(ref) => \`d.state = ${ref}\``); an undefined value is no filter. */
  filters?: Filter[];
}

/**
 * A SQL condition: `alias.id` is visible. Appends its values to `values` and refers to them by
 * position.
 */
export function visibleSql(seen: Visibility, alias: string, values: unknown[]): string {
  let inScope = 'true';
  if (seen.scope) {
    values.push(seen.scope);
    inScope = `${alias}.id = any($${values.length}::uuid[])`;
  }
  if (seen.all) return inScope;
  values.push(seen.type, seen.userId);
  const typeRef = `$${values.length - 1}`;
  const userRef = `$${values.length}`;
  // `listed` cannot be the caller's alias (theirs would be shadowed).
  return `${inScope} and exists (select 1 from resource_access listed
    where listed.resource_type = ${typeRef} and listed.resource_id = ${alias}.id
    and listed.user_id = ${userRef})`;
}

export function createAccessRepository(pool: pg.Pool) {
  /** Puts the user on the resource's list (in the caller's transaction when given). */
  async function grant(seen: Visibility, id: string, db: Queryable = pool): Promise<void> {
    await db.query(
      `insert into resource_access (workspace_id, resource_type, resource_id, user_id)
       values ($1, $2, $3, $4) on conflict do nothing`,
      [seen.workspaceId, seen.type, id, seen.userId],
    );
  }

  return {
    grant,

    /** Whether the resource is in the workspace and visible (the scope is not checked here). */
    async isVisible(seen: Visibility, id: string): Promise<boolean> {
      const { rowCount } = await pool.query(
        `select 1 from ${TABLES[seen.type]} r where r.id = $1 and r.workspace_id = $2 and ($3 or exists (
           select 1 from resource_access a
           where a.resource_type = $4 and a.resource_id = r.id and a.user_id = $5))`,
        [id, seen.workspaceId, seen.all, seen.type, seen.userId],
      );
      return rowCount === 1;
    },

    /** The ids of the type whose list holds the user. */
    async listedIds(seen: Visibility): Promise<string[]> {
      const { rows } = await pool.query<{ resource_id: string }>(
        `select resource_id from resource_access
         where workspace_id = $1 and user_id = $2 and resource_type = $3`,
        [seen.workspaceId, seen.userId, seen.type],
      );
      return rows.map((row) => row.resource_id);
    },

    /** One page of the visible resources of the workspace, and how many there are. */
    async page<Row extends pg.QueryResultRow>(
      seen: Visibility,
      listing: Listing,
      paging: Paging,
    ): Promise<{ rows: Row[]; total: number }> {
      const { alias } = listing;
      const values: unknown[] = [seen.workspaceId];
      const where = [`${alias}.workspace_id = $1`, visibleSql(seen, alias, values)];
      return readPage<Row>(
        pool,
        {
          columns: listing.columns ?? `${alias}.*`,
          from: `${TABLES[seen.type]} ${alias}`,
          where,
          values,
          filters: listing.filters,
          orderBy: listing.orderBy,
        },
        paging,
      );
    },

    /** Runs `insert` and puts the user on the new resource's list, in one transaction. */
    async insertGranted(
      seen: Visibility,
      id: string,
      insert: (client: pg.PoolClient) => Promise<unknown>,
    ): Promise<void> {
      await inTransaction(pool, async (client) => {
        await insert(client);
        await grant(seen, id, client);
      });
    },

    /** Who is on the list. */
    async users(type: ResourceType, id: string): Promise<string[]> {
      const { rows } = await pool.query<{ user_id: string }>(
        'select user_id from resource_access where resource_type = $1 and resource_id = $2 order by user_id',
        [type, id],
      );
      return rows.map((row) => row.user_id);
    },

    /** Those of `userIds` who are members of the workspace. */
    async membersAmong(workspaceId: string, userIds: string[]): Promise<Set<string>> {
      const { rows } = await pool.query<{ user_id: string }>(
        'select user_id from workspace_users where workspace_id = $1 and user_id = any($2)',
        [workspaceId, userIds],
      );
      return new Set(rows.map((row) => row.user_id));
    },

    /** Replaces the list in one transaction. */
    async replace(workspaceId: string, type: ResourceType, id: string, userIds: string[]) {
      await inTransaction(pool, async (client) => {
        await client.query(
          'delete from resource_access where resource_type = $1 and resource_id = $2',
          [type, id],
        );
        await client.query(
          `insert into resource_access (workspace_id, resource_type, resource_id, user_id)
           select $1, $2, $3, unnest($4::text[])`,
          [workspaceId, type, id, userIds],
        );
      });
    },

    /** Drops the list of a deleted resource. */
    async forget(type: ResourceType, id: string, db: Queryable = pool): Promise<void> {
      await db.query('delete from resource_access where resource_type = $1 and resource_id = $2', [
        type,
        id,
      ]);
    },
  };
}

export type AccessRepository = ReturnType<typeof createAccessRepository>;
