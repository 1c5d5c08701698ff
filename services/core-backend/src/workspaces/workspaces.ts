/**
 * Workspaces and their members. Whoever creates a workspace owns it. Inside a workspace every
 * call is decided by the caller's workspace role (`access`): someone who is not a member is told
 * the workspace does not exist (404), so ids of other tenants' workspaces reveal nothing. A
 * workspace always keeps at least one owner.
 */
import { randomUUID } from 'node:crypto';
import { badRequest, conflict, forbidden, HttpError, inTransaction, notFound } from '@pelita/kit';
import type pg from 'pg';
import type { Paging } from '../paging';
import type { UserDirectory } from '../users/user-directory';
import type { Permission } from './permissions';
import { checkRoleGrant, type RoleGrant } from './role-grants';
import { parseWorkspaceSettings, type WorkspaceSettings } from './workspace-settings';

export interface Workspace {
  id: string;
  name: string;
  description: string;
  settings: WorkspaceSettings;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
  /** The caller's role in it (absent in the administrators' list). */
  role?: string;
}

export interface Member {
  userId: string;
  username: string;
  fullName: string;
  role: string;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * What a member may do in one workspace. A program or visitor using an app key acts as the key's
 * maker narrowed to the key's `scope` (`access/key-principal.ts`): every access list answers
 * only what is in both.
 */
export interface Membership {
  workspaceId: string;
  userId: string;
  role: string;
  permissions: Permission[];
  scope?: KeyScope;
}

/**
 * The documents and audios an app key may answer from (its sources, folders and topics resolved
 * to documents); any other kind of resource is out of its reach.
 */
export interface KeyScope {
  keyId: string;
  document: string[];
  audio: string[];
}

interface WorkspaceRow {
  id: string;
  name: string;
  description: string;
  settings: unknown;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  role?: string;
}

const toWorkspace = (row: WorkspaceRow): Workspace => ({
  id: row.id,
  name: row.name,
  description: row.description,
  settings: parseWorkspaceSettings(row.settings),
  createdBy: row.created_by,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  ...(row.role ? { role: row.role } : {}),
});

const workspaceNotFound = (id: string) =>
  new HttpError(404, 'workspace_not_found', `Workspace ${id} does not exist`);

export function createWorkspaces(
  pool: pg.Pool,
  users: UserDirectory,
  /** Deletes a workspace everywhere (`src/deletion/`). */
  deletions: { workspace(id: string): Promise<void> },
) {
  async function find(id: string): Promise<Workspace> {
    const { rows } = await pool.query<WorkspaceRow>('select * from workspaces where id = $1', [id]);
    if (!rows[0]) throw workspaceNotFound(id);
    return toWorkspace(rows[0]);
  }

  async function membership(workspaceId: string, userId: string): Promise<Membership | undefined> {
    const { rows } = await pool.query<{ role: string; permissions: Permission[] }>(
      `select u.role, r.permissions from workspace_users u join workspace_roles r on r.name = u.role
       where u.workspace_id = $1 and u.user_id = $2`,
      [workspaceId, userId],
    );
    const row = rows[0];
    return row && { workspaceId, userId, role: row.role, permissions: row.permissions };
  }

  /** Runs `change` in a transaction that fails when it leaves the workspace without an owner. */
  async function keepingAnOwner(
    workspaceId: string,
    change: (client: pg.PoolClient) => Promise<void>,
  ): Promise<void> {
    await inTransaction(pool, async (client) => {
      // One member change at a time per workspace: two owners leaving together must not both pass.
      await client.query('select 1 from workspaces where id = $1 for update', [workspaceId]);
      await change(client);
      const { rows } = await client.query<{ owners: number }>(
        `select count(*)::int as owners from workspace_users where workspace_id = $1 and role = 'owner'`,
        [workspaceId],
      );
      if ((rows[0]?.owners ?? 0) === 0) throw conflict('A workspace keeps at least one owner');
    });
  }

  return {
    /**
     * The caller's membership, or 404 as if the workspace did not exist; 403 when the
     * membership lacks `permission`.
     */
    async access(
      workspaceId: string,
      userId: string,
      permission?: Permission,
    ): Promise<Membership> {
      const member = await membership(workspaceId, userId);
      if (!member) throw workspaceNotFound(workspaceId);
      if (permission && !member.permissions.includes(permission)) {
        throw forbidden(`Your workspace role ${member.role} does not allow ${permission}`);
      }
      return member;
    },

    async create(
      userId: string,
      input: { name: string; description: string; settings: WorkspaceSettings },
    ): Promise<Workspace> {
      const id = randomUUID();
      await inTransaction(pool, async (client) => {
        await client.query(
          `insert into workspaces (id, name, description, settings, created_by)
           values ($1, $2, $3, $4, $5)`,
          [id, input.name, input.description, input.settings, userId],
        );
        await client.query(
          `insert into workspace_users (workspace_id, user_id, role) values ($1, $2, 'owner')`,
          [id, userId],
        );
      });
      return { ...(await find(id)), role: 'owner' };
    },

    /** The workspaces the user is a member of, newest first, with their role. */
    async listFor(userId: string, paging: Paging) {
      const { rows } = await pool.query<WorkspaceRow & { total: number }>(
        `select w.*, u.role, count(*) over ()::int as total
         from workspaces w join workspace_users u on u.workspace_id = w.id
         where u.user_id = $1 order by w.created_at desc, w.id limit $2 offset $3`,
        [userId, paging.limit, (paging.page - 1) * paging.limit],
      );
      return { rows: rows.map(toWorkspace), total: await totalOf(rows, () => countFor(userId)) };
    },

    /** Every workspace (administrators). */
    async listAll(paging: Paging) {
      const { rows } = await pool.query<WorkspaceRow & { total: number }>(
        `select w.*, count(*) over ()::int as total from workspaces w
         order by w.created_at desc, w.id limit $1 offset $2`,
        [paging.limit, (paging.page - 1) * paging.limit],
      );
      return {
        rows: rows.map(toWorkspace),
        total: await totalOf(rows, async () => {
          const { rows: count } = await pool.query<{ n: number }>(
            'select count(*)::int as n from workspaces',
          );
          return count[0]?.n ?? 0;
        }),
      };
    },

    async get(id: string, role?: string): Promise<Workspace> {
      return { ...(await find(id)), ...(role ? { role } : {}) };
    },

    // What members ask of the workspace itself, as putMember and dropMember: `callerId` first.

    /** The workspace as a member sees it, with their role (404 to anyone else). */
    async show(callerId: string, workspaceId: string): Promise<Workspace> {
      const member = await this.access(workspaceId, callerId);
      return this.get(workspaceId, member.role);
    },

    /** Renames, describes or re-sets the workspace: needs `workspace.manage`. */
    async change(
      callerId: string,
      workspaceId: string,
      changes: { name?: string; description?: string; settings?: WorkspaceSettings },
    ): Promise<Workspace> {
      const member = await this.access(workspaceId, callerId, 'workspace.manage');
      return { ...(await this.update(workspaceId, changes)), role: member.role };
    },

    /** Deletes the workspace with everything in it (`remove`): needs `workspace.manage`. */
    async destroy(callerId: string, workspaceId: string): Promise<void> {
      await this.access(workspaceId, callerId, 'workspace.manage');
      await this.remove(workspaceId);
    },

    /** The settings, defaults filled in: any member reads them. */
    async settingsOf(callerId: string, workspaceId: string): Promise<WorkspaceSettings> {
      await this.access(workspaceId, callerId);
      return (await this.get(workspaceId)).settings;
    },

    /** Replaces the settings: needs `workspace.manage`. */
    async replaceSettings(
      callerId: string,
      workspaceId: string,
      settings: WorkspaceSettings,
    ): Promise<WorkspaceSettings> {
      await this.access(workspaceId, callerId, 'workspace.manage');
      return (await this.update(workspaceId, { settings })).settings;
    },

    /** The members with their roles: any member reads them. */
    async membersOf(callerId: string, workspaceId: string, paging: Paging) {
      await this.access(workspaceId, callerId);
      return this.members(workspaceId, paging);
    },

    async update(
      id: string,
      changes: { name?: string; description?: string; settings?: WorkspaceSettings },
    ): Promise<Workspace> {
      await pool.query(
        `update workspaces set name = coalesce($2, name), description = coalesce($3, description),
           settings = coalesce($4, settings), updated_at = now() where id = $1`,
        [id, changes.name ?? null, changes.description ?? null, changes.settings ?? null],
      );
      return find(id);
    },

    /**
     * Deletes the workspace with everything in it, on every server: its rows at once (404 to
     * everyone from then on), its passages, OCR results and stored files through a deletion job
     * that is retried until they are gone.
     */
    async remove(id: string): Promise<void> {
      await deletions.workspace(id);
    },

    async members(workspaceId: string, paging: Paging) {
      const { rows } = await pool.query<{
        user_id: string;
        username: string;
        full_name: string;
        role: string;
        created_at: Date;
        updated_at: Date;
        total: number;
      }>(
        `select m.user_id, u.username, u.full_name, m.role, m.created_at, m.updated_at,
           count(*) over ()::int as total
         from workspace_users m join users u on u.id = m.user_id
         where m.workspace_id = $1 order by m.created_at, m.user_id limit $2 offset $3`,
        [workspaceId, paging.limit, (paging.page - 1) * paging.limit],
      );
      const members: Member[] = rows.map((row) => ({
        userId: row.user_id,
        username: row.username,
        fullName: row.full_name,
        role: row.role,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      }));
      return {
        rows: members,
        total: await totalOf(rows, async () => {
          const { rows: count } = await pool.query<{ n: number }>(
            'select count(*)::int as n from workspace_users where workspace_id = $1',
            [workspaceId],
          );
          return count[0]?.n ?? 0;
        }),
      };
    },

    /**
     * Adds the user or changes their role. `grantedBy`, the membership of the member doing it,
     * may give only what `checkRoleGrant` allows (403 otherwise); unset for an administrator's
     * repair (`PUT /api/admin/workspaces/{id}/owner`).
     */
    async setMember(
      workspaceId: string,
      userId: string,
      role: string,
      grantedBy?: Membership,
    ): Promise<void> {
      if (!(await users.exists(userId))) {
        throw new HttpError(
          404,
          'user_not_found',
          `User ${userId} is unknown here: users are known once the user service has copied them (on creation or change) or once they have signed in`,
        );
      }
      await keepingAnOwner(workspaceId, async (client) => {
        if (grantedBy) await checkGrant(client, workspaceId, grantedBy, userId, role);
        await client
          .query(
            `insert into workspace_users (workspace_id, user_id, role) values ($1, $2, $3)
             on conflict (workspace_id, user_id) do update set role = excluded.role, updated_at = now()`,
            [workspaceId, userId, role],
          )
          .catch((err: unknown) => {
            // The role's foreign key.
            if ((err as { code?: string }).code === '23503') {
              throw badRequest(`Workspace role ${role} does not exist`);
            }
            throw err;
          });
      });
    },

    /**
     * `callerId` adds the user or changes their role: needs `members.manage`, and gives only what
     * `checkRoleGrant` allows.
     */
    async putMember(callerId: string, workspaceId: string, userId: string, role: string) {
      const granter = await this.access(workspaceId, callerId, 'members.manage');
      await this.setMember(workspaceId, userId, role, granter);
    },

    /**
     * `callerId` removes the member: anyone may leave; removing others needs `members.manage` and
     * a role that could have given theirs (only an owner removes an owner).
     */
    async dropMember(callerId: string, workspaceId: string, userId: string): Promise<void> {
      if (callerId === userId) {
        await this.access(workspaceId, callerId);
        return this.removeMember(workspaceId, userId);
      }
      const remover = await this.access(workspaceId, callerId, 'members.manage');
      await this.removeMember(workspaceId, userId, remover);
    },

    async removeMember(workspaceId: string, userId: string, removedBy?: Membership): Promise<void> {
      await keepingAnOwner(workspaceId, async (client) => {
        if (removedBy) await checkRemoval(client, workspaceId, removedBy, userId);
        const { rowCount } = await client.query(
          'delete from workspace_users where workspace_id = $1 and user_id = $2',
          [workspaceId, userId],
        );
        if (rowCount === 0) throw notFound(`User ${userId} is not a member`);
        // Rejoining later starts with nothing shared.
        await client.query('delete from resource_access where workspace_id = $1 and user_id = $2', [
          workspaceId,
          userId,
        ]);
      });
    },
  };

  /** A member's role with its permissions, read in the member change's transaction. */
  async function roleIn(client: pg.PoolClient, workspaceId: string, memberId: string) {
    const { rows } = await client.query<RoleGrant>(
      `select r.name, r.permissions from workspace_users u join workspace_roles r on r.name = u.role
       where u.workspace_id = $1 and u.user_id = $2`,
      [workspaceId, memberId],
    );
    return rows[0];
  }

  /** Removing a member is taking their role away: the remover must have been able to give it. */
  async function checkRemoval(
    client: pg.PoolClient,
    workspaceId: string,
    remover: Membership,
    userId: string,
  ): Promise<void> {
    const removerRole = await roleIn(client, workspaceId, remover.userId);
    if (!removerRole) throw workspaceNotFound(workspaceId);
    const current = await roleIn(client, workspaceId, userId);
    if (current) checkRoleGrant(removerRole, current, current);
  }

  /** Reads the roles involved (in the member change's transaction) and checks the grant. */
  async function checkGrant(
    client: pg.PoolClient,
    workspaceId: string,
    granter: Membership,
    userId: string,
    role: string,
  ): Promise<void> {
    const { rows: wanted } = await client.query<RoleGrant>(
      'select name, permissions from workspace_roles where name = $1',
      [role],
    );
    if (!wanted[0]) throw badRequest(`Workspace role ${role} does not exist`);
    const roleOf = async (memberId: string) => {
      const { rows } = await client.query<RoleGrant>(
        `select r.name, r.permissions from workspace_users u join workspace_roles r on r.name = u.role
         where u.workspace_id = $1 and u.user_id = $2`,
        [workspaceId, memberId],
      );
      return rows[0];
    };
    // Read again under the workspace's lock: the granter's own role may have changed since.
    const granterRole = await roleOf(granter.userId);
    if (!granterRole) throw workspaceNotFound(workspaceId);
    checkRoleGrant(granterRole, wanted[0], await roleOf(userId));
  }

  async function countFor(userId: string): Promise<number> {
    const { rows } = await pool.query<{ n: number }>(
      'select count(*)::int as n from workspace_users where user_id = $1',
      [userId],
    );
    return rows[0]?.n ?? 0;
  }
}

/** The window's total, or a count when the page is past the end (the window is then empty). */
async function totalOf(rows: Array<{ total: number }>, count: () => Promise<number>) {
  return rows[0]?.total ?? count();
}

export type Workspaces = ReturnType<typeof createWorkspaces>;
