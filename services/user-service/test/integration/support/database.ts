/**
 * A fresh PostgreSQL database per suite on the test server (`POSTGRES_URL` is a superuser), and
 * its address through the test PgBouncer (transaction mode) for the suites that use the pooler.
 */
import { randomBytes } from 'node:crypto';
import { requireEnv } from '@pelita/testenv';
import pg from 'pg';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** `url`'s database through `PGBOUNCER_URL`, with the same credentials. */
export function throughPgBouncer(url: string, database = new URL(url).pathname.slice(1)): string {
  const pooled = new URL(requireEnv('PGBOUNCER_URL').PGBOUNCER_URL);
  pooled.pathname = `/${database}`;
  return pooled.toString();
}

/** `name`: a fixed name (a pooler's database entry names it), dropped first if it is left over. */
export async function createTestDatabase(
  name = `user_service_${randomBytes(6).toString('hex')}`,
): Promise<TestDatabase> {
  const { POSTGRES_URL } = requireEnv('POSTGRES_URL');
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}
