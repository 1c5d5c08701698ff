/**
 * Workspace roles: named sets of permissions. The built-in `owner`, `editor` and `viewer` are
 * fixed; an administrator may add others (`POST /api/workspace-roles`, OPA-guarded). A role still
 * held by a member cannot be deleted.
 */
import { conflict, forbidden, notFound } from '@pelita/kit';
import type pg from 'pg';
import { isUniqueViolation } from '../db/database';
import type { Permission } from './permissions';

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

interface RoleRow {
  name: string;
  description: string;
  permissions: Permission[];
  builtin: boolean;
  created_at: Date;
  updated_at: Date;
}

const toRole = (row: RoleRow): WorkspaceRole => ({
  name: row.name,
  description: row.description,
  permissions: row.permissions,
  builtin: row.builtin,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export function createWorkspaceRoles(pool: pg.Pool) {
  async function get(name: string): Promise<WorkspaceRole> {
    const { rows } = await pool.query<RoleRow>('select * from workspace_roles where name = $1', [
      name,
    ]);
    if (!rows[0]) throw notFound(`Workspace role ${name} does not exist`);
    return toRole(rows[0]);
  }
  async function changeable(name: string): Promise<void> {
    if ((await get(name)).builtin) throw forbidden(`The built-in role ${name} cannot be changed`);
  }
  const unique = (permissions: Permission[]) => [...new Set(permissions)];

  return {
    get,
    async list(): Promise<WorkspaceRole[]> {
      const { rows } = await pool.query<RoleRow>(
        'select * from workspace_roles order by builtin desc, cardinality(permissions) desc, name',
      );
      return rows.map(toRole);
    },
    async create(input: RoleInput): Promise<WorkspaceRole> {
      await pool
        .query('insert into workspace_roles (name, description, permissions) values ($1, $2, $3)', [
          input.name,
          input.description,
          unique(input.permissions),
        ])
        .catch((err: unknown) => {
          throw isUniqueViolation(err) ? conflict(`Role ${input.name} exists`) : err;
        });
      return get(input.name);
    },
    async update(name: string, input: Omit<RoleInput, 'name'>): Promise<WorkspaceRole> {
      await changeable(name);
      await pool.query(
        `update workspace_roles set description = $2, permissions = $3, updated_at = now()
         where name = $1`,
        [name, input.description, unique(input.permissions)],
      );
      return get(name);
    },
    async remove(name: string): Promise<void> {
      await changeable(name);
      const { rowCount } = await pool.query(
        `delete from workspace_roles r where name = $1
         and not exists (select 1 from workspace_users u where u.role = r.name)`,
        [name],
      );
      if (rowCount === 0) throw conflict(`Role ${name} is still held by members`);
    },
  };
}

export type WorkspaceRoles = ReturnType<typeof createWorkspaceRoles>;
