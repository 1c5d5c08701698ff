/** SQL of the shortcut access lists of roles. */
import { inTransaction } from '@pelita/kit';
import type { Pool } from 'pg';

export interface ShortcutFields {
  name: string;
  label: string;
  path: string;
}

export interface Shortcut extends ShortcutFields {
  id: number;
  roleId: number;
  position: number;
}

export function createShortcutRepository(pool: Pool) {
  return {
    async list(roleId: number): Promise<Shortcut[]> {
      const { rows } = await pool.query<Shortcut>(
        `select id, role_id as "roleId", position, name, label, path from role_shortcuts
         where role_id = $1 order by position`,
        [roleId],
      );
      return rows;
    },
    /** Replaces the role's list with `shortcuts`, in that order, in one transaction. */
    async replace(roleId: number, shortcuts: ShortcutFields[]): Promise<void> {
      await inTransaction(pool, async (client) => {
        await client.query('delete from role_shortcuts where role_id = $1', [roleId]);
        for (const [position, s] of shortcuts.entries()) {
          await client.query(
            `insert into role_shortcuts (role_id, position, name, label, path)
             values ($1, $2, $3, $4, $5)`,
            [roleId, position, s.name, s.label, s.path],
          );
        }
      });
    },
  };
}

export type ShortcutRepository = ReturnType<typeof createShortcutRepository>;
