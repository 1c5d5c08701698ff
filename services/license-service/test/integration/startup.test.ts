/**
 * Start-up on a fresh database by several replicas at once: the advisory lock makes them take
 * turns, so the schema is migrated once, the built-in roles and the first account made once.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, serveInProcess, type RunningServer } from '@pelita/kit';
import { testPasswords } from '@pelita/kit/testing';
import { createLicenseService, settingsSchema } from '@pelita/license-service';
import { requireEnv } from '@pelita/testenv';
import pg from 'pg';

describe('license service start-up', () => {
  const { POSTGRES_URL } = requireEnv('POSTGRES_URL');
  const name = `license_startup_${randomBytes(6).toString('hex')}`;
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  let replicas: RunningServer[] = [];

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  });

  it('migrates once and makes the first records once when three replicas start together', async () => {
    const logger = createLogger({ name: 'license-service', level: 'silent' });
    const settings = settingsSchema.parse({
      DATABASE_URL: url.toString(),
      ADMIN_EMAIL: 'first@vendor.test',
      ADMIN_PASSWORD: 'first-password-12',
    });
    replicas = await Promise.all(
      [1, 2, 3].map(() =>
        serveInProcess(
          createLicenseService(settings, logger, { passwords: testPasswords() }),
          logger,
        ),
      ),
    );
    const db = new pg.Client({ connectionString: url.toString() });
    await db.connect();
    try {
      const counts = await db.query<{ migrations: number; roles: number; accounts: number }>(
        `select (select count(*)::int from schema_migrations) as migrations,
                (select count(*)::int from roles) as roles,
                (select count(*)::int from admin_users) as accounts`,
      );
      // Each migration file once, whatever the number of replicas.
      const files = readdirSync(join(__dirname, '../../migrations')).filter((f) =>
        f.endsWith('.sql'),
      );
      expect(counts.rows[0]).toEqual({ migrations: files.length, roles: 4, accounts: 1 });
    } finally {
      await db.end();
    }
    for (const replica of replicas) {
      expect((await fetch(`${replica.url}/ready`)).status).toBe(200);
    }
  });

  it('refuses settings that belong together when one is missing', () => {
    const parsed = settingsSchema.safeParse({ DATABASE_URL: 'postgres://x/y', GITLAB_TOKEN: 't' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path.join('.'))).toEqual(['GITLAB_PROJECT_ID']);
    const short = settingsSchema.safeParse({
      DATABASE_URL: 'postgres://x/y',
      ADMIN_EMAIL: 'a@b.test',
      ADMIN_PASSWORD: 'short',
    });
    expect(short.error?.issues.map((i) => i.path.join('.'))).toEqual(['ADMIN_PASSWORD']);
  });
});
