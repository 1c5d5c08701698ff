/**
 * License API accounts read only the clients they are bound to, an administrator binds them on
 * the account's edit page, and API-only accounts cannot use the dashboard: refused at sign-in,
 * and a session whose account turned API-only ends on the next page. Against real PostgreSQL.
 */
import { DashboardClient } from './support/dashboard-client';
import {
  ADMIN,
  basic,
  startLicensePlatform,
  type LicensePlatform,
} from './support/license-platform';

describe('license API bindings and dashboard sign-in permission', () => {
  let platform: LicensePlatform;
  const PASSWORD = 'tenant-password-123';

  beforeAll(async () => {
    platform = await startLicensePlatform();
  });
  afterAll(() => platform?.stop());

  const read = (id: string, email: string) =>
    fetch(`${platform.url}/api/licenses/${id}`, {
      headers: { authorization: basic(email, PASSWORD) },
    });
  const accountRow = async (email: string) =>
    (
      await platform.db.query<{ id: string; role_id: string }>(
        'select id, role_id from admin_users where email = $1',
        [email],
      )
    ).rows[0]!;
  const notFound = {
    success: false,
    message: 'License not found',
    validation: { valid: false, code: 'NOT_FOUND', detail: 'No such client' },
  };

  it('answers an account bound to nothing as if no client existed', async () => {
    const id = await platform.addClient({ name: 'Someone else', company_name: 'PT Else' });
    await platform.addAccount('unbound@vendor.test', PASSWORD, 'license-api');
    const res = await read(id, 'unbound@vendor.test');
    expect(res.status).toBe(404);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual(notFound);
    expect(text).not.toContain('PT Else');
  });

  it('reads the clients an account is bound to, and no other', async () => {
    const mine = await platform.addClient({ name: 'Mine' });
    const other = await platform.addClient({ name: 'Other' });
    await platform.addAccount('tenant@vendor.test', PASSWORD, 'license-api', [mine]);
    const own = await read(mine, 'tenant@vendor.test');
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({ data: { id: mine, name: 'Mine' } });
    const foreign = await read(other, 'tenant@vendor.test');
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual(notFound);
  });

  it('lets an administrator bind an account on its edit page', async () => {
    const client = await platform.addClient({ name: 'Bound by hand' });
    await platform.addAccount('bind@vendor.test', PASSWORD, 'license-api');
    expect((await read(client, 'bind@vendor.test')).status).toBe(404);

    const admin = new DashboardClient(platform.url);
    await admin.password(ADMIN.email, ADMIN.password);
    await admin.enrol();
    const { id, role_id } = await accountRow('bind@vendor.test');
    const form = (clients: string) => ({
      name: 'Tenant bind',
      email: 'bind@vendor.test',
      role_id,
      password: '',
      is_active: 'on',
      api_client_ids: clients,
    });
    expect((await admin.get(`/admins/${id}/edit`)).text).toContain('License API clients');
    const unknown = await admin.post(`/admins/${id}`, form('00000000-0000-4000-8000-000000000000'));
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('No such client: 00000000-0000-4000-8000-000000000000');
    const saved = await admin.post(`/admins/${id}`, form(`${client}\n`));
    expect(saved.status).toBe(303);
    expect((await read(client, 'bind@vendor.test')).status).toBe(200);
    // The edit form shows the binding back, and the activity log names the change.
    expect((await admin.get(`/admins/${id}/edit`)).text).toContain(client);
    const logged = await platform.db.query<{ changes: Array<{ field: string }> }>(
      `select changes from activity_log where action = 'admin.update' and entity_id = $1`,
      [id],
    );
    expect(logged.rows[0]!.changes.map((c) => c.field)).toContain('api_client_ids');
  });

  it('refuses an API-only account at sign-in, with no session', async () => {
    await platform.addAccount('api-only@vendor.test', PASSWORD, 'license-api');
    const visitor = new DashboardClient(platform.url);
    const refused = await visitor.password('api-only@vendor.test', PASSWORD);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('can only use the license API');
    const enrol = await visitor.get('/login/enrol');
    expect(enrol.status).toBe(303);
    expect(enrol.location).toBe('/login');
  });

  it('ends the session of an account whose role turned API-only, on every page', async () => {
    await platform.addAccount('turned@vendor.test', PASSWORD, 'viewer');
    const visitor = new DashboardClient(platform.url);
    await visitor.password('turned@vendor.test', PASSWORD);
    await visitor.enrol();
    expect((await visitor.get('/')).status).toBe(200);
    await platform.db.query(
      `update admin_users set role_id = (select id from roles where name = 'license-api')
       where email = 'turned@vendor.test'`,
    );
    for (const path of ['/', '/account', '/clients']) {
      const page = await visitor.get(path);
      expect(page.status).toBe(303);
      expect(page.location).toBe('/login');
    }
  });
});
