/**
 * The SQL of workspaces and their members. Rows come back as stored (settings unparsed,
 * permissions as text): the workspaces module (`workspaces.ts`) decides who may read or change
 * them and keeps the rules (an owner remains, roles are granted within one's own).
 */
import { inTransaction } from '@pelita/kit';
import type pg from 'pg';
import type { Paging } from '../paging';

export interface WorkspaceRow {
  id: string;
  name: string;
  description: string;
  settings: unknown;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  /** The member's role, in the member's listing. */
  role?: string;
}

export interface MemberRow {
  user_id: string;
  username: string;
  full_name: string;
  role: string;
  created_at: Date;
  updated_at: Date;
}

/** A workspace role's name and permissions, as stored. */
export interface RoleRow {
  name: string;
  permissions: string[];
}

export interface WorkspaceChanges {
  name?: string;
  description?: string;
  settings?: unknown;
}

/**
 * The reads and writes of one member change, in its transaction with the workspace's row locked:
 * one member change at a time per workspace, so two owners leaving together cannot both pass.
 */
export interface MemberTransaction {
  /** The member's role with its permissions; undefined for a non-member. */
  roleOf(userId: string): Promise<RoleRow | undefined>;
  /** The workspace role of that name; undefined when there is none. */
  role(name: string): Promise<RoleRow | undefined>;
  /** Adds the member or changes their role; false when the role does not exist. */
  putMember(userId: string, role: string): Promise<boolean>;
  /** Removes the member and their place on the workspace's access lists; false for a non-member. */
  removeMember(userId: string): Promise<boolean>;
  owners(): Promise<number>;
}

const MEMBER_ROLE = `select r.name, r.permissions from workspace_users u
  join workspace_roles r on r.name = u.role where u.workspace_id = $1 and u.user_id = $2`;

export function createWorkspaceRepository(pool: pg.Pool) {
  /**
   * One page of `select` (which counts its rows in a `total` window column), and the total: the
   * window's, or `count`'s when the page is past the end (the window is then empty).
   */
  async function page<Row extends pg.QueryResultRow>(
    select: string,
    values: unknown[],
    count: string,
    paging: Paging,
  ): Promise<{ rows: Row[]; total: number }> {
    const { rows } = await pool.query<Row & { total: number }>(
      `${select} limit $${values.length + 1} offset $${values.length + 2}`,
      [...values, paging.limit, (paging.page - 1) * paging.limit],
    );
    if (rows[0]) return { rows, total: rows[0].total };
    const { rows: counted } = await pool.query<{ n: number }>(count, values);
    return { rows, total: counted[0]?.n ?? 0 };
  }

  return {
    async find(id: string): Promise<WorkspaceRow | undefined> {
      const { rows } = await pool.query<WorkspaceRow>('select * from workspaces where id = $1', [
        id,
      ]);
      return rows[0];
    },

    /** The user's role in the workspace with its permissions; undefined for a non-member. */
    async membership(workspaceId: string, userId: string): Promise<RoleRow | undefined> {
      const { rows } = await pool.query<RoleRow>(MEMBER_ROLE, [workspaceId, userId]);
      return rows[0];
    },

    /** Inserts the workspace with its creator as owner. */
    async insert(workspace: {
      id: string;
      name: string;
      description: string;
      settings: unknown;
      createdBy: string;
    }): Promise<void> {
      await inTransaction(pool, async (client) => {
        await client.query(
          `insert into workspaces (id, name, description, settings, created_by)
           values ($1, $2, $3, $4, $5)`,
          [
            workspace.id,
            workspace.name,
            workspace.description,
            workspace.settings,
            workspace.createdBy,
          ],
        );
        await client.query(
          `insert into workspace_users (workspace_id, user_id, role) values ($1, $2, 'owner')`,
          [workspace.id, workspace.createdBy],
        );
      });
    },

    /** The workspaces the user is a member of, newest first, with their role. */
    pageFor: (userId: string, paging: Paging) =>
      page<WorkspaceRow>(
        `select w.*, u.role, count(*) over ()::int as total
         from workspaces w join workspace_users u on u.workspace_id = w.id
         where u.user_id = $1 order by w.created_at desc, w.id`,
        [userId],
        'select count(*)::int as n from workspace_users where user_id = $1',
        paging,
      ),

    /** Every workspace, newest first. */
    pageAll: (paging: Paging) =>
      page<WorkspaceRow>(
        `select w.*, count(*) over ()::int as total from workspaces w
         order by w.created_at desc, w.id`,
        [],
        'select count(*)::int as n from workspaces',
        paging,
      ),

    /** Changes the fields given. */
    async update(id: string, changes: WorkspaceChanges): Promise<void> {
      await pool.query(
        `update workspaces set name = coalesce($2, name), description = coalesce($3, description),
           settings = coalesce($4, settings), updated_at = now() where id = $1`,
        [id, changes.name ?? null, changes.description ?? null, changes.settings ?? null],
      );
    },

    /** The members with their names, oldest first. */
    members: (workspaceId: string, paging: Paging) =>
      page<MemberRow>(
        `select m.user_id, u.username, u.full_name, m.role, m.created_at, m.updated_at,
           count(*) over ()::int as total
         from workspace_users m join users u on u.id = m.user_id
         where m.workspace_id = $1 order by m.created_at, m.user_id`,
        [workspaceId],
        'select count(*)::int as n from workspace_users where workspace_id = $1',
        paging,
      ),

    /** Runs `change` in one transaction holding the workspace's row (see MemberTransaction). */
    memberChange<T>(
      workspaceId: string,
      change: (members: MemberTransaction) => Promise<T>,
    ): Promise<T> {
      return inTransaction(pool, async (client) => {
        await client.query('select 1 from workspaces where id = $1 for update', [workspaceId]);
        return change({
          async roleOf(userId) {
            const { rows } = await client.query<RoleRow>(MEMBER_ROLE, [workspaceId, userId]);
            return rows[0];
          },
          async role(name) {
            const { rows } = await client.query<RoleRow>(
              'select name, permissions from workspace_roles where name = $1',
              [name],
            );
            return rows[0];
          },
          async putMember(userId, role) {
            try {
              await client.query(
                `insert into workspace_users (workspace_id, user_id, role) values ($1, $2, $3)
                 on conflict (workspace_id, user_id) do update set role = excluded.role, updated_at = now()`,
                [workspaceId, userId, role],
              );
              return true;
            } catch (err) {
              // The role's foreign key.
              if ((err as { code?: string }).code === '23503') return false;
              throw err;
            }
          },
          async removeMember(userId) {
            const { rowCount } = await client.query(
              'delete from workspace_users where workspace_id = $1 and user_id = $2',
              [workspaceId, userId],
            );
            if (rowCount === 0) return false;
            // Rejoining later starts with nothing shared.
            await client.query(
              'delete from resource_access where workspace_id = $1 and user_id = $2',
              [workspaceId, userId],
            );
            return true;
          },
          async owners() {
            const { rows } = await client.query<{ owners: number }>(
              `select count(*)::int as owners from workspace_users
               where workspace_id = $1 and role = 'owner'`,
              [workspaceId],
            );
            return rows[0]?.owners ?? 0;
          },
        });
      });
    },
  };
}

export type WorkspaceRepository = ReturnType<typeof createWorkspaceRepository>;
