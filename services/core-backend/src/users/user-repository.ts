/** The SQL of the users the core backend knows (`users`): ids and the names it shows. */
import type pg from 'pg';

export function createUserRepository(pool: pg.Pool) {
  return {
    /** Creates the user, or renames them when the name changed. */
    async upsertName(id: string, username: string): Promise<void> {
      await pool.query(
        `insert into users (id, username) values ($1, $2)
         on conflict (id) do update set username = excluded.username, updated_at = now()
         where users.username <> excluded.username`,
        [id, username],
      );
    },
    /** Creates or renames the user; an unset full name keeps the stored one. */
    async upsert(id: string, username: string, fullName: string | undefined): Promise<void> {
      await pool.query(
        `insert into users (id, username, full_name) values ($1, $2, coalesce($3, ''))
         on conflict (id) do update set username = excluded.username,
           full_name = coalesce($3, users.full_name), updated_at = now()`,
        [id, username, fullName ?? null],
      );
    },
    async exists(id: string): Promise<boolean> {
      const { rowCount } = await pool.query('select 1 from users where id = $1', [id]);
      return rowCount === 1;
    },
  };
}

export type UserRepository = ReturnType<typeof createUserRepository>;
