/** On an empty database, the first administrator (role `admin`, created by the migrations). */
import type { Logger } from '@pelita/kit';
import type { PoolClient } from 'pg';
import { hashPassword } from '../credentials/passwords';

export interface FirstAdmin {
  email: string | undefined;
  password: string | undefined;
  username: string;
}

/** Creates the admin when no user exists; returns whether it did. Call under the start-up lock. */
export async function ensureFirstAdmin(
  client: PoolClient,
  admin: FirstAdmin,
  logger: Logger,
): Promise<boolean> {
  const { rows } = await client.query<{ n: string }>('select count(*) as n from users');
  if (Number(rows[0]?.n ?? 0) > 0) return false;
  if (!admin.email || !admin.password) {
    logger.warn(
      'No user exists and FIRST_ADMIN_EMAIL / FIRST_ADMIN_PASSWORD are not set: nobody can log in as administrator',
    );
    return false;
  }
  await client.query(
    `insert into users (email, username, full_name, password_hash, role_id)
     select $1, $2, 'Administrator', $3, id from roles where name = 'admin'`,
    [admin.email, admin.username, await hashPassword(admin.password)],
  );
  logger.info({ username: admin.username }, 'first administrator created');
  return true;
}
