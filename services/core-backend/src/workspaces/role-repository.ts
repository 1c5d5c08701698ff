/** The SQL of workspace roles (`workspace-roles.ts` keeps the rules: built-in ones are fixed). */
import type pg from 'pg';
import { isUniqueViolation } from '../db/database';

export interface WorkspaceRoleRow {
  name: string;
  description: string;
  permissions: string[];
  builtin: boolean;
  created_at: Date;
  updated_at: Date;
}

export function createRoleRepository(pool: pg.Pool) {
  return {
    async find(name: string): Promise<WorkspaceRoleRow | undefined> {
      const { rows } = await pool.query<WorkspaceRoleRow>(
        'select * from workspace_roles where name = $1',
        [name],
      );
      return rows[0];
    },
    /** Built-in first, then the roles holding most. */
    async list(): Promise<WorkspaceRoleRow[]> {
      const { rows } = await pool.query<WorkspaceRoleRow>(
        'select * from workspace_roles order by builtin desc, cardinality(permissions) desc, name',
      );
      return rows;
    },
    /** False when the name is taken. */
    async insert(role: { name: string; description: string; permissions: string[] }) {
      try {
        await pool.query(
          'insert into workspace_roles (name, description, permissions) values ($1, $2, $3)',
          [role.name, role.description, role.permissions],
        );
        return true;
      } catch (err) {
        if (isUniqueViolation(err)) return false;
        throw err;
      }
    },
    async update(name: string, role: { description: string; permissions: string[] }) {
      await pool.query(
        `update workspace_roles set description = $2, permissions = $3, updated_at = now()
         where name = $1`,
        [name, role.description, role.permissions],
      );
    },
    /** Deletes the role unless a member holds it; false when one does (or it is gone). */
    async removeUnheld(name: string): Promise<boolean> {
      const { rowCount } = await pool.query(
        `delete from workspace_roles r where name = $1
         and not exists (select 1 from workspace_users u where u.role = r.name)`,
        [name],
      );
      return rowCount === 1;
    },
  };
}

export type RoleRepository = ReturnType<typeof createRoleRepository>;
