/**
 * Workspace roles: named sets of permissions. The built-in `owner`, `editor` and `viewer` are
 * fixed; an administrator may add others (`POST /api/workspace-roles`, OPA-guarded). A role still
 * held by a member cannot be deleted.
 */
import { conflict, forbidden, notFound } from '@pelita/kit';
import type { Permission } from './permissions';
import type { RoleRepository, WorkspaceRoleRow } from './role-repository';

export interface WorkspaceRole {
  name: string;
  description: string;
  permissions: Permission[];
  builtin: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface RoleInput {
  name: string;
  description: string;
  permissions: Permission[];
}

const toRole = (row: WorkspaceRoleRow): WorkspaceRole => ({
  name: row.name,
  description: row.description,
  // The column holds only permissions: roles are written through the Permission schema.
  permissions: row.permissions as Permission[],
  builtin: row.builtin,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export function createWorkspaceRoles(repository: RoleRepository) {
  async function get(name: string): Promise<WorkspaceRole> {
    const row = await repository.find(name);
    if (!row) throw notFound(`Workspace role ${name} does not exist`);
    return toRole(row);
  }
  async function changeable(name: string): Promise<void> {
    if ((await get(name)).builtin) throw forbidden(`The built-in role ${name} cannot be changed`);
  }
  const unique = (permissions: Permission[]) => [...new Set(permissions)];

  return {
    get,
    list: async (): Promise<WorkspaceRole[]> => (await repository.list()).map(toRole),
    async create(input: RoleInput): Promise<WorkspaceRole> {
      const created = await repository.insert({
        ...input,
        permissions: unique(input.permissions),
      });
      if (!created) throw conflict(`Role ${input.name} exists`);
      return get(input.name);
    },
    async update(name: string, input: Omit<RoleInput, 'name'>): Promise<WorkspaceRole> {
      await changeable(name);
      await repository.update(name, { ...input, permissions: unique(input.permissions) });
      return get(name);
    },
    async remove(name: string): Promise<void> {
      await changeable(name);
      if (!(await repository.removeUnheld(name))) {
        throw conflict(`Role ${name} is still held by members`);
      }
    },
  };
}

export type WorkspaceRoles = ReturnType<typeof createWorkspaceRoles>;
