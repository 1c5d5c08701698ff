/** On an empty database, the first administrator (role `admin`, created by the migrations). */
import type { Logger, PasswordHasher } from '@pelita/kit';
import type { PoolClient } from 'pg';
import type { OutboxRepository } from '../policy-sync/outbox-repository';

export interface FirstAdmin {
  email: string | undefined;
  password: string | undefined;
  username: string;
}

/**
 * Creates the admin when no user exists; returns whether it did. Call under the start-up lock, in
 * its transaction. With an outbox (policy-sync configured) both mappings are queued in that
 * transaction: the admin's grants may not be in OPA yet on a fresh installation.
 */
export async function ensureFirstAdmin(
  client: PoolClient,
  admin: FirstAdmin,
  logger: Logger,
  passwords: Pick<PasswordHasher, 'hash'>,
  outbox?: Pick<OutboxRepository, 'add'>,
): Promise<boolean> {
  const { rows } = await client.query<{ n: string }>('select count(*) as n from users');
  if (Number(rows[0]?.n ?? 0) > 0) return false;
  if (!admin.email || !admin.password) {
    logger.warn(
      'No user exists and FIRST_ADMIN_EMAIL / FIRST_ADMIN_PASSWORD are not set: nobody can log in as administrator',
    );
    return false;
  }
  const passwordHash = await passwords.hash(admin.password);
  await client.query(
    `insert into users (email, username, full_name, password_hash, role_id)
     select $1, $2, 'Administrator', $3, id from roles where name = 'admin'`,
    [admin.email, admin.username, passwordHash],
  );
  await outbox?.add(client, ['role-users', 'role-grants']);
  logger.info({ username: admin.username }, 'first administrator created');
  return true;
}
