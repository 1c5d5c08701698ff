/**
 * Workspaces and their members. Whoever creates a workspace owns it. Inside a workspace every
 * call is decided by the caller's workspace role (`access`): someone who is not a member is told
 * the workspace does not exist (404), so ids of other tenants' workspaces reveal nothing. A
 * workspace always keeps at least one owner.
 */
import { randomUUID } from 'node:crypto';
import { badRequest, conflict, forbidden, HttpError, notFound } from '@pelita/kit';
import type { Paging } from '../paging';
import type { UserDirectory } from '../users/user-directory';
import type { Permission } from './permissions';
import { checkRoleGrant, type RoleGrant } from './role-grants';
import type {
  MemberRow,
  MemberTransaction,
  RoleRow,
  WorkspaceChanges,
  WorkspaceRepository,
  WorkspaceRow,
} from './workspace-repository';
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

const toMember = (row: MemberRow): Member => ({
  userId: row.user_id,
  username: row.username,
  fullName: row.full_name,
  role: row.role,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

// The column holds only permissions: roles are written through the Permission schema.
const toGrant = (row: RoleRow): RoleGrant => ({
  name: row.name,
  permissions: row.permissions as Permission[],
});

const workspaceNotFound = (id: string) =>
  new HttpError(404, 'workspace_not_found', `Workspace ${id} does not exist`);

/** A page of rows as a page of what they map to. */
const mapped = <Row, T>(page: { rows: Row[]; total: number }, map: (row: Row) => T) => ({
  rows: page.rows.map(map),
  total: page.total,
});

/** The page of members answered after a change. */
const FIRST_MEMBERS: Paging = { page: 1, limit: 200 };

export interface WorkspacesDeps {
  repository: WorkspaceRepository;
  users: Pick<UserDirectory, 'exists'>;
  /** Deletes a workspace everywhere (`src/deletion/`). */
  deletions: { workspace(id: string): Promise<void> };
}

export function createWorkspaces({ repository, users, deletions }: WorkspacesDeps) {
  async function get(id: string, role?: string): Promise<Workspace> {
    const row = await repository.find(id);
    if (!row) throw workspaceNotFound(id);
    return { ...toWorkspace(row), ...(role ? { role } : {}) };
  }

  /**
   * The caller's membership, or 404 as if the workspace did not exist; 403 when the
   * membership lacks `permission`.
   */
  async function access(
    workspaceId: string,
    userId: string,
    permission?: Permission,
  ): Promise<Membership> {
    const row = await repository.membership(workspaceId, userId);
    if (!row) throw workspaceNotFound(workspaceId);
    const { name: role, permissions } = toGrant(row);
    if (permission && !permissions.includes(permission)) {
      throw forbidden(`Your workspace role ${role} does not allow ${permission}`);
    }
    return { workspaceId, userId, role, permissions };
  }

  /** Runs `change` in a member change that fails when it leaves the workspace without an owner. */
  function keepingAnOwner(
    workspaceId: string,
    change: (members: MemberTransaction) => Promise<void>,
  ): Promise<void> {
    return repository.memberChange(workspaceId, async (members) => {
      await change(members);
      if ((await members.owners()) === 0) throw conflict('A workspace keeps at least one owner');
    });
  }

  async function update(id: string, changes: WorkspaceChanges): Promise<Workspace> {
    await repository.update(id, changes);
    return get(id);
  }

  const members = async (workspaceId: string, paging: Paging) =>
    mapped(await repository.members(workspaceId, paging), toMember);

  /**
   * Adds the user or changes their role. `grantedBy`, the membership of the member doing it,
   * may give only what `checkRoleGrant` allows (403 otherwise); unset for an administrator's
   * repair (`PUT /api/admin/workspaces/{id}/owner`).
   */
  async function setMember(
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
    await keepingAnOwner(workspaceId, async (tx) => {
      if (grantedBy) await checkGrant(tx, workspaceId, grantedBy, userId, role);
      if (!(await tx.putMember(userId, role))) {
        throw badRequest(`Workspace role ${role} does not exist`);
      }
    });
  }

  async function removeMember(
    workspaceId: string,
    userId: string,
    removedBy?: Membership,
  ): Promise<void> {
    await keepingAnOwner(workspaceId, async (tx) => {
      if (removedBy) await checkRemoval(tx, workspaceId, removedBy, userId);
      if (!(await tx.removeMember(userId))) throw notFound(`User ${userId} is not a member`);
    });
  }

  return {
    access,
    get,
    setMember,

    /** Creates the workspace; `userId` owns it. */
    async create(
      userId: string,
      input: { name: string; description: string; settings: WorkspaceSettings },
    ): Promise<Workspace> {
      const id = randomUUID();
      await repository.insert({ id, ...input, createdBy: userId });
      return get(id, 'owner');
    },

    /** The workspaces the user is a member of, newest first, with their role. */
    listFor: async (userId: string, paging: Paging) =>
      mapped(await repository.pageFor(userId, paging), toWorkspace),

    /** Every workspace (administrators: the route is OPA-guarded). */
    listAll: async (paging: Paging) => mapped(await repository.pageAll(paging), toWorkspace),

    /**
     * An administrator makes themselves an owner of the workspace (a repair: e.g. its owners
     * left the company); 404 when there is no such workspace.
     */
    async takeOwnership(userId: string, workspaceId: string): Promise<Workspace> {
      await get(workspaceId);
      await setMember(workspaceId, userId, 'owner');
      return get(workspaceId, 'owner');
    },

    // What members ask of the workspace itself: `callerId` first.

    /** The workspace as a member sees it, with their role (404 to anyone else). */
    async show(callerId: string, workspaceId: string): Promise<Workspace> {
      const member = await access(workspaceId, callerId);
      return get(workspaceId, member.role);
    },

    /** Renames, describes or re-sets the workspace: needs `workspace.manage`. */
    async change(
      callerId: string,
      workspaceId: string,
      changes: { name?: string; description?: string; settings?: WorkspaceSettings },
    ): Promise<Workspace> {
      const member = await access(workspaceId, callerId, 'workspace.manage');
      return { ...(await update(workspaceId, changes)), role: member.role };
    },

    /**
     * Deletes the workspace with everything in it, on every server: its rows at once (404 to
     * everyone from then on), its passages, OCR results and stored files through a deletion job
     * that is retried until they are gone. Needs `workspace.manage`.
     */
    async destroy(callerId: string, workspaceId: string): Promise<void> {
      await access(workspaceId, callerId, 'workspace.manage');
      await deletions.workspace(workspaceId);
    },

    /** The settings, defaults filled in: any member reads them. */
    async settingsOf(callerId: string, workspaceId: string): Promise<WorkspaceSettings> {
      await access(workspaceId, callerId);
      return (await get(workspaceId)).settings;
    },

    /** Replaces the settings: needs `workspace.manage`. */
    async replaceSettings(
      callerId: string,
      workspaceId: string,
      settings: WorkspaceSettings,
    ): Promise<WorkspaceSettings> {
      await access(workspaceId, callerId, 'workspace.manage');
      return (await update(workspaceId, { settings })).settings;
    },

    /** The members with their roles: any member reads them. */
    async membersOf(callerId: string, workspaceId: string, paging: Paging) {
      await access(workspaceId, callerId);
      return members(workspaceId, paging);
    },

    /**
     * `callerId` adds the user or changes their role: needs `members.manage`, and gives only what
     * `checkRoleGrant` allows. Answers the first members after the change.
     */
    async putMember(callerId: string, workspaceId: string, userId: string, role: string) {
      const granter = await access(workspaceId, callerId, 'members.manage');
      await setMember(workspaceId, userId, role, granter);
      return { ...(await members(workspaceId, FIRST_MEMBERS)), ...FIRST_MEMBERS };
    },

    /**
     * `callerId` removes the member: anyone may leave; removing others needs `members.manage` and
     * a role that could have given theirs (only an owner removes an owner).
     */
    async dropMember(callerId: string, workspaceId: string, userId: string): Promise<void> {
      if (callerId === userId) {
        await access(workspaceId, callerId);
        return removeMember(workspaceId, userId);
      }
      const remover = await access(workspaceId, callerId, 'members.manage');
      await removeMember(workspaceId, userId, remover);
    },
  };
}

/** Removing a member is taking their role away: the remover must have been able to give it. */
async function checkRemoval(
  tx: MemberTransaction,
  workspaceId: string,
  remover: Membership,
  userId: string,
): Promise<void> {
  const removerRole = await tx.roleOf(remover.userId);
  if (!removerRole) throw workspaceNotFound(workspaceId);
  const current = await tx.roleOf(userId);
  if (current) checkRoleGrant(toGrant(removerRole), toGrant(current), toGrant(current));
}

/** Reads the roles involved (in the member change's transaction) and checks the grant. */
async function checkGrant(
  tx: MemberTransaction,
  workspaceId: string,
  granter: Membership,
  userId: string,
  role: string,
): Promise<void> {
  const wanted = await tx.role(role);
  if (!wanted) throw badRequest(`Workspace role ${role} does not exist`);
  // Read again under the workspace's lock: the granter's own role may have changed since.
  const granterRole = await tx.roleOf(granter.userId);
  if (!granterRole) throw workspaceNotFound(workspaceId);
  const current = await tx.roleOf(userId);
  checkRoleGrant(toGrant(granterRole), toGrant(wanted), current && toGrant(current));
}

export type Workspaces = ReturnType<typeof createWorkspaces>;
