/** SQL of roles. */
import type { Pool } from 'pg';
import type { Db } from '@pelita/kit';

export interface Role {
  id: number;
  name: string;
  description: string;
  level: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface RoleInput {
  name: string;
  description: string;
  level: number;
}

// Named as the Role fields (camelCase inside the service), so rows need no mapping.
const COLUMNS =
  'id, name, description, level, created_at as "createdAt", updated_at as "updatedAt"';

export function createRoleRepository(pool: Pool) {
  return {
    async list(): Promise<Role[]> {
      return (await pool.query<Role>(`select ${COLUMNS} from roles order by level, name`)).rows;
    },
    async find(id: number): Promise<Role | undefined> {
      return (await pool.query<Role>(`select ${COLUMNS} from roles where id = $1`, [id])).rows[0];
    },
    async findByName(name: string): Promise<Role | undefined> {
      return (await pool.query<Role>(`select ${COLUMNS} from roles where name = $1`, [name]))
        .rows[0];
    },
    async insert(role: RoleInput, db: Db = pool): Promise<Role> {
      const { rows } = await db.query<Role>(
        `insert into roles (name, description, level) values ($1, $2, $3) returning ${COLUMNS}`,
        [role.name, role.description, role.level],
      );
      return rows[0]!;
    },
    async update(id: number, role: RoleInput, db: Db = pool): Promise<Role | undefined> {
      const { rows } = await db.query<Role>(
        `update roles set name = $2, description = $3, level = $4, updated_at = now()
         where id = $1 returning ${COLUMNS}`,
        [id, role.name, role.description, role.level],
      );
      return rows[0];
    },
    async remove(id: number, db: Db = pool): Promise<boolean> {
      return ((await db.query('delete from roles where id = $1', [id])).rowCount ?? 0) > 0;
    },
    async countUsers(id: number): Promise<number> {
      const { rows } = await pool.query<{ n: string }>(
        'select count(*) as n from users where role_id = $1',
        [id],
      );
      return Number(rows[0]?.n ?? 0);
    },
  };
}

export type RoleRepository = ReturnType<typeof createRoleRepository>;
