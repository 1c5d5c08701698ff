/**
 * Upgrading a database of the first release (only 001_schema applied, its four built-in roles):
 * the accounts that worked keep working — dashboard roles keep signing in, the super-admin still
 * reads every client, a tenant's API account reads the clients that existed at the upgrade — and
 * nothing more: a client added later is not read by the old API account until it is bound.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, migrate, serveInProcess, type RunningServer } from '@pelita/kit';
import { testPasswords } from '@pelita/kit/testing';
import { createLicenseService, settingsSchema } from '@pelita/license-service';
import { requireEnv } from '@pelita/testenv';
import pg from 'pg';
import { basic } from './support/license-platform';

const FIRST_RELEASE_ROLES: Record<string, string[]> = {
  'super-admin': [
    'clients.read',
    'clients.write',
    'secrets.read',
    'secrets.write',
    'admins.manage',
    'activity.read',
    'api.licenses',
  ],
  operator: ['clients.read', 'clients.write', 'secrets.read', 'secrets.write', 'activity.read'],
  viewer: ['clients.read', 'activity.read'],
  'license-api': ['api.licenses'],
  empty: [],
};

describe('upgrade from the first release', () => {
  const { POSTGRES_URL } = requireEnv('POSTGRES_URL');
  const name = `license_upgrade_${randomBytes(6).toString('hex')}`;
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  const db = new pg.Pool({ connectionString: url.toString(), max: 2 });
  const PASSWORD = 'upgrade-password-1';
  const clients = [randomUUID(), randomUUID()];
  let service: RunningServer | undefined;
  // About roles and bindings, not hashes: hashes of earlier releases are the kit's tests' part.
  const passwords = testPasswords();

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const first = mkdtempSync(join(tmpdir(), 'license-migrations-'));
    copyFileSync(join(__dirname, '../../migrations/001_schema.sql'), join(first, '001_schema.sql'));
    const client = await db.connect();
    try {
      await migrate(client, first);
    } finally {
      client.release();
      rmSync(first, { recursive: true });
    }
    for (const [role, permissions] of Object.entries(FIRST_RELEASE_ROLES)) {
      await db.query('insert into roles (id, name, permissions) values ($1, $2, $3)', [
        randomUUID(),
        role,
        permissions,
      ]);
    }
    for (const [i, id] of clients.entries()) {
      await db.query(`insert into clients (id, name) values ($1, $2)`, [id, `Client ${i}`]);
      await db.query(
        `insert into licenses (id, client_id, license_name) values ($1, $2, 'Platform')`,
        [randomUUID(), id],
      );
    }
    const hash = await passwords.hash(PASSWORD);
    for (const [email, role] of [
      ['root@vendor.test', 'super-admin'],
      ['tenant@vendor.test', 'license-api'],
      ['ops@vendor.test', 'operator'],
    ]) {
      await db.query(
        `insert into admin_users (id, name, email, password_hash, role_id)
         values ($1, $2, $2, $3, (select id from roles where name = $4))`,
        [randomUUID(), email, hash, role],
      );
    }
    const logger = createLogger({ name: 'license-service', level: 'silent' });
    service = await serveInProcess(
      createLicenseService(settingsSchema.parse({ DATABASE_URL: url.toString() }), logger, {
        passwords,
      }),
      logger,
    );
  });
  afterAll(async () => {
    await service?.stop();
    await db.end();
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  });

  const read = (id: string, email: string) =>
    fetch(`${service!.url}/api/licenses/${id}`, {
      headers: { authorization: basic(email, PASSWORD) },
    });

  it('keeps dashboard roles signing in and leaves the API-only role out', async () => {
    const { rows } = await db.query<{ name: string; permissions: string[] }>(
      'select name, permissions from roles',
    );
    const of = (role: string) => rows.find((r) => r.name === role)!.permissions;
    for (const role of ['super-admin', 'operator', 'viewer', 'empty']) {
      expect(of(role)).toContain('dashboard.sign_in');
    }
    expect(of('license-api')).toEqual(['api.licenses']);
    expect(of('super-admin')).toContain('api.licenses.all');
    expect(of('operator')).not.toContain('api.licenses.all');
  });

  it("binds an API account to the clients of the day, the super-admin's reads every client", async () => {
    const { rows } = await db.query<{ email: string; api_client_ids: string[] }>(
      'select email, api_client_ids from admin_users order by email',
    );
    expect(Object.fromEntries(rows.map((r) => [r.email, r.api_client_ids]))).toEqual({
      'ops@vendor.test': [],
      'root@vendor.test': [],
      'tenant@vendor.test': clients,
    });
    for (const id of clients) {
      expect((await read(id, 'tenant@vendor.test')).status).toBe(200);
      expect((await read(id, 'root@vendor.test')).status).toBe(200);
    }
    const later = randomUUID();
    await db.query(`insert into clients (id, name) values ($1, 'Later')`, [later]);
    expect((await read(later, 'tenant@vendor.test')).status).toBe(404);
    expect((await read(later, 'root@vendor.test')).status).toBe(200);
  });
});
