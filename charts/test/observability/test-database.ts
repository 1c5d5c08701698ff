/** A PostgreSQL database of its own on the test server, made and dropped with psql (no driver here). */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { requireEnv } from '@pelita/testenv';

export async function createDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const { POSTGRES_URL } = requireEnv('POSTGRES_URL');
  const name = `observability_${randomBytes(6).toString('hex')}`;
  const psql = (sql: string) => promisify(execFile)('psql', [POSTGRES_URL, '-qc', sql]);
  await psql(`create database ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => psql(`drop database if exists ${name} with (force)`).then(() => undefined),
  };
}
