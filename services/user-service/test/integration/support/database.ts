/** A fresh PostgreSQL database per suite on the test server (`POSTGRES_URL` is a superuser). */
import { randomBytes } from 'node:crypto';
import { requireEnv } from '@pelita/testenv';
import pg from 'pg';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const { POSTGRES_URL } = requireEnv('POSTGRES_URL');
  const name = `user_service_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
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
