/**
 * Access lists of knowledge resources. Every listing and every retrieval asks `visible` (or uses
 * `visibleSql` in its query), every read of one resource asks `requireVisible`: a resource the
 * caller may not use is answered as not existing (404), so its id reveals nothing.
 */
import { badRequest, HttpError, inTransaction } from '@pelita/kit';
import type pg from 'pg';
import type { Paging } from '../paging';
import type { Membership } from '../workspaces/workspaces';

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

/** The ids of one type the caller may use, or `all` for members with `knowledge.all`. */
export type Visible = 'all' | string[];

type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/** How one type is listed: its alias, columns, order, and the filters the caller chose. */
export interface Listing {
  alias: string;
  /** The columns read, `<alias>.*` when omitted. */
  columns?: string;
  orderBy: string;
  /** Conditions on a value (`(ref) => \`d.state = ${ref}\``); an undefined value is no filter. */
  filters?: Array<[condition: (ref: string) => string, value: unknown]>;
}

/** What a key's scope lets through of a type: nothing but its documents and audios. */
const scoped = (member: Membership, type: ResourceType): string[] | undefined =>
  member.scope && (type === 'document' || type === 'audio' ? member.scope[type] : []);

export function createAccessLists(pool: pg.Pool) {
  const seesAll = (member: Membership) => member.permissions.includes('knowledge.all');

  /** Whether the resource is in the member's workspace and the member may use it. */
  async function usable(member: Membership, type: ResourceType, id: string): Promise<boolean> {
    if (scoped(member, type)?.includes(id) === false) return false;
    const { rowCount } = await pool.query(
      `select 1 from ${TABLES[type]} r where r.id = $1 and r.workspace_id = $2 and ($3 or exists (
         select 1 from resource_access a
         where a.resource_type = $4 and a.resource_id = r.id and a.user_id = $5))`,
      [id, member.workspaceId, seesAll(member), type, member.userId],
    );
    return rowCount === 1;
  }

  return {
    /** Puts the creator on the new resource's list (in the creating transaction when given). */
    async grantCreator(
      member: Membership,
      type: ResourceType,
      id: string,
      db: Queryable = pool,
    ): Promise<void> {
      await db.query(
        `insert into resource_access (workspace_id, resource_type, resource_id, user_id)
         values ($1, $2, $3, $4) on conflict do nothing`,
        [member.workspaceId, type, id, member.userId],
      );
    },

    async visible(member: Membership, type: ResourceType): Promise<Visible> {
      const scope = scoped(member, type);
      if (scope?.length === 0) return [];
      let listed: Visible = 'all';
      if (!seesAll(member)) {
        const { rows } = await pool.query<{ resource_id: string }>(
          `select resource_id from resource_access
           where workspace_id = $1 and user_id = $2 and resource_type = $3`,
          [member.workspaceId, member.userId, type],
        );
        listed = rows.map((row) => row.resource_id);
      }
      if (!scope) return listed;
      return listed === 'all' ? scope : listed.filter((id) => scope.includes(id));
    },

    /**
     * A SQL condition for listings: `alias.id` is visible to the member. Appends its values to
     * `values` and refers to them by position.
     */
    visibleSql(member: Membership, type: ResourceType, alias: string, values: unknown[]): string {
      const scope = scoped(member, type);
      let inScope = 'true';
      if (scope) {
        values.push(scope);
        inScope = `${alias}.id = any($${values.length}::uuid[])`;
      }
      if (seesAll(member)) return inScope;
      values.push(type, member.userId);
      const typeRef = `$${values.length - 1}`;
      const userRef = `$${values.length}`;
      // `listed` cannot be the caller's alias (theirs would be shadowed).
      return `${inScope} and exists (select 1 from resource_access listed
        where listed.resource_type = ${typeRef} and listed.resource_id = ${alias}.id
        and listed.user_id = ${userRef})`;
    },

    canUse: usable,

    /**
     * One page of the workspace's resources of `type` the member may use, and how many there
     * are: the one way every list reads them, so no listing can leave the access list out.
     */
    async page<Row extends pg.QueryResultRow>(
      member: Membership,
      type: ResourceType,
      listing: Listing,
      paging: Paging,
    ): Promise<{ rows: Row[]; total: number }> {
      const { alias } = listing;
      const values: unknown[] = [member.workspaceId];
      const conditions = [
        `${alias}.workspace_id = $1`,
        this.visibleSql(member, type, alias, values),
      ];
      for (const [condition, value] of listing.filters ?? []) {
        if (value === undefined) continue;
        values.push(value);
        conditions.push(condition(`$${values.length}`));
      }
      const from = `from ${TABLES[type]} ${alias} where ${conditions.join(' and ')}`;
      const { rows: count } = await pool.query<{ n: number }>(
        `select count(*)::int as n ${from}`,
        values,
      );
      values.push(paging.limit, (paging.page - 1) * paging.limit);
      const { rows } = await pool.query<Row>(
        `select ${listing.columns ?? `${alias}.*`} ${from} order by ${listing.orderBy}
         limit $${values.length - 1} offset $${values.length}`,
        values,
      );
      return { rows, total: count[0]?.n ?? 0 };
    },

    /** Creates a resource (`insert`) and puts its creator on its list, in one transaction. */
    async createGranted(
      member: Membership,
      type: ResourceType,
      id: string,
      insert: (client: pg.PoolClient) => Promise<unknown>,
    ): Promise<void> {
      await inTransaction(pool, async (client) => {
        await insert(client);
        await this.grantCreator(member, type, id, client);
      });
    },

    /** 404 `<type>_not_found` unless the resource is in the workspace and the member may use it. */
    async requireVisible(member: Membership, type: ResourceType, id: string): Promise<void> {
      if (!(await usable(member, type, id))) {
        throw new HttpError(404, `${type}_not_found`, `The ${type} ${id} does not exist`);
      }
    },

    /** Who is on the list. */
    async users(type: ResourceType, id: string): Promise<string[]> {
      const { rows } = await pool.query<{ user_id: string }>(
        'select user_id from resource_access where resource_type = $1 and resource_id = $2 order by user_id',
        [type, id],
      );
      return rows.map((row) => row.user_id);
    },

    /**
     * Replaces the list. Only members of the workspace can be on it (400 otherwise). Changing it
     * takes `knowledge.write` and being on it, or `knowledge.all`.
     */
    async replace(
      member: Membership,
      type: ResourceType,
      id: string,
      userIds: string[],
    ): Promise<string[]> {
      if (!member.permissions.includes('knowledge.write') && !seesAll(member)) {
        throw new HttpError(
          403,
          'forbidden',
          'Changing who may use knowledge needs knowledge.write',
        );
      }
      await this.requireVisible(member, type, id);
      const wanted = [...new Set(userIds)];
      const { rows } = await pool.query<{ user_id: string }>(
        'select user_id from workspace_users where workspace_id = $1 and user_id = any($2)',
        [member.workspaceId, wanted],
      );
      const members = new Set(rows.map((row) => row.user_id));
      const strangers = wanted.filter((user) => !members.has(user));
      if (strangers.length > 0) {
        throw badRequest(`Not members of the workspace: ${strangers.join(', ')}`);
      }
      await inTransaction(pool, async (client) => {
        await client.query(
          'delete from resource_access where resource_type = $1 and resource_id = $2',
          [type, id],
        );
        await client.query(
          `insert into resource_access (workspace_id, resource_type, resource_id, user_id)
           select $1, $2, $3, unnest($4::text[])`,
          [member.workspaceId, type, id, wanted],
        );
      });
      return this.users(type, id);
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

export type AccessLists = ReturnType<typeof createAccessLists>;
