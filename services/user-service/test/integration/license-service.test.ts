/**
 * License validation at login against the real license service (issue 16), not an HTTP double:
 * the user service asks `GET /api/licenses/{id_client}` with Basic credentials of a dashboard
 * account, and the license service's records decide. The other cases run against the double in
 * license.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { createLogger, serveInProcess, type RunningServer } from '@pelita/kit';
import { testPasswords } from '@pelita/kit/testing';
import { createLicenseService, settingsSchema } from '@pelita/license-service';
import { requireEnv } from '@pelita/testenv';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from './support/database';
import { ADMIN, startPlatform, type Platform } from './support/platform';

const VENDOR = { email: 'vendor-admin@vendor.test', password: 'vendor-password-1' };

describe('license validation against the real license service', () => {
  let licenseDb: TestDatabase;
  let licenseService: RunningServer;
  let licenseRecords: pg.Pool;
  let platform: Platform;
  const clientId = randomUUID();

  beforeAll(async () => {
    requireEnv('POSTGRES_URL');
    licenseDb = await createTestDatabase();
    const logger = createLogger({ name: 'license-service', level: 'silent' });
    const settings = settingsSchema.parse({
      DATABASE_URL: licenseDb.url,
      ADMIN_EMAIL: VENDOR.email,
      ADMIN_PASSWORD: VENDOR.password,
    });
    licenseService = await serveInProcess(
      createLicenseService(settings, logger, { passwords: testPasswords() }),
      logger,
    );
    licenseRecords = new pg.Pool({ connectionString: licenseDb.url, max: 1 });
    await licenseRecords.query(
      `insert into clients (id, name, company_name, is_active, max_user) values ($1, 'Tenant', 'PT Tenant', true, 100)`,
      [clientId],
    );
    await licenseRecords.query(
      `insert into licenses (id, client_id, license_name, status, expired_date, activated_date)
       values ($1, $2, 'Platform', true, now() + interval '30 days', now())`,
      [randomUUID(), clientId],
    );
    platform = await startPlatform({
      LICENSE_API_URL: licenseService.url,
      LICENSE_CLIENT_ID: clientId,
      LICENSE_API_USERNAME: VENDOR.email,
      LICENSE_API_PASSWORD: VENDOR.password,
    });
  });
  afterAll(async () => {
    await platform?.stop();
    await licenseService?.stop();
    await licenseRecords?.end();
    await licenseDb?.drop();
  });

  const login = () =>
    platform.request('POST', '/auth/login', {
      body: { email: ADMIN.email, password: ADMIN.password },
    });
  const code = async (res: Response) =>
    ((await res.json()) as { error: { code: string } }).error.code;

  it('lets a login through while the client holds a valid license', async () => {
    expect((await login()).status).toBe(200);
  });

  it('refuses once the license is suspended on the license service', async () => {
    await licenseRecords.query('update licenses set status = false where client_id = $1', [
      clientId,
    ]);
    const res = await login();
    expect(res.status).toBe(403);
    expect(await code(res)).toBe('license_expired');
    await licenseRecords.query('update licenses set status = true where client_id = $1', [
      clientId,
    ]);
  });

  it("refuses a client holding no license with the license service's code (NOT_FOUND)", async () => {
    const licenses = await licenseRecords.query<{ id: string }>(
      'delete from licenses where client_id = $1 returning id',
      [clientId],
    );
    const res = await login();
    expect(res.status).toBe(403);
    expect(await code(res)).toBe('license_not_found');
    await licenseRecords.query(
      `insert into licenses (id, client_id, license_name, status, expired_date, activated_date)
       values ($1, $2, 'Platform', true, now() + interval '30 days', now())`,
      [licenses.rows[0]!.id, clientId],
    );
    expect((await login()).status).toBe(200);
  });

  it('refuses while the client is inactive', async () => {
    await licenseRecords.query('update clients set is_active = false where id = $1', [clientId]);
    const res = await login();
    expect(res.status).toBe(403);
    expect(await code(res)).toBe('license_inactive');
    await licenseRecords.query('update clients set is_active = true where id = $1', [clientId]);
    expect((await login()).status).toBe(200);
  });

  it('fails closed with 503 when the Basic credentials are refused', async () => {
    // A different secret for the vendor account: the license service answers 401.
    await licenseRecords.query(
      `update admin_users set password_hash = 'scrypt$x' where email = $1`,
      [VENDOR.email],
    );
    const res = await login();
    expect(res.status).toBe(503);
    expect(await code(res)).toBe('license_unavailable');
  });
});
