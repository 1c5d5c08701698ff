/**
 * License validation at login, registration and user creation against an HTTP double of the
 * license service's API (`GET /api/licenses/{id_client}` with HTTP Basic), answering exactly
 * its documented shapes.
 */
import { randomBytes } from 'node:crypto';
import { newMailedToken } from './support/mailbox';
import { ADMIN, startPlatform, type Platform } from './support/platform';
import { startRecordingServer } from './support/recording-server';

const CLIENT_ID = '5b0c6f2e-1a7e-4c55-9a39-0d6f3f3b1c11';
const future = new Date(Date.now() + 30 * 24 * 3600 * 1000).toISOString();
const past = new Date(Date.now() - 24 * 3600 * 1000).toISOString();

function clientAnswer(
  overrides: { is_active?: boolean; max_user?: number; licenses?: unknown[] } = {},
) {
  return {
    status: 200,
    body: {
      success: true,
      data: {
        id: CLIENT_ID,
        name: 'Pelita Test',
        company_name: 'PT Pelita',
        email: 'ops@pelita.test',
        is_active: true,
        max_user: 100,
        licenses: [{ id: 'l-1', license_name: 'Platform', status: true, expired_date: future }],
        ...overrides,
      },
    },
  };
}

describe('license validation', () => {
  let platform: Platform;
  let answer: { status: number; body?: unknown; delayMs?: number } = clientAnswer();
  let licenseApi: Awaited<ReturnType<typeof startRecordingServer>>;

  beforeAll(async () => {
    licenseApi = await startRecordingServer((req) =>
      req.headers.authorization ===
      `Basic ${Buffer.from('dash-admin:dash-pw-8').toString('base64')}`
        ? answer
        : { status: 401, body: { message: 'Unauthenticated.' } },
    );
    platform = await startPlatform({
      REGISTRATION_ENABLED: 'true',
      LICENSE_API_URL: licenseApi.url,
      LICENSE_CLIENT_ID: CLIENT_ID,
      LICENSE_API_USERNAME: 'dash-admin',
      LICENSE_API_PASSWORD: 'dash-pw-8',
      LICENSE_API_TIMEOUT_MS: '1000',
    });
  });
  afterAll(async () => {
    await platform?.stop();
    await licenseApi?.close();
  });

  const login = () =>
    platform.request('POST', '/auth/login', {
      body: { email: ADMIN.email, password: ADMIN.password },
    });
  // The SMTP receiver keeps the mail of earlier runs: addresses of this run only.
  const run = randomBytes(3).toString('hex');
  const address = (name: string) => `${name}-${run}@pelita.test`;
  const register = (name: string) =>
    platform.request('POST', '/auth/register', {
      body: {
        email: address(name),
        username: name,
        full_name: name,
        password: 'licensed-pw-1',
      },
    });
  /** Follows the link mailed to a registered account: the moment it takes its seat. */
  const verify = async (name: string) =>
    platform.request('POST', '/auth/verify-email', {
      body: { token: await newMailedToken(address(name), '/verify-email') },
    });
  const code = async (res: Response) =>
    ((await res.json()) as { error: { code: string } }).error.code;

  it('lets logins and registrations through with a valid license, asking with Basic credentials', async () => {
    answer = clientAnswer();
    expect((await login()).status).toBe(200);
    expect((await register('licensed-one')).status).toBe(201);
    expect((await verify('licensed-one')).status).toBe(200);
    expect(licenseApi.requests.at(-1)).toMatchObject({
      method: 'GET',
      path: `/api/licenses/${CLIENT_ID}`,
    });
  });

  it("refuses when the license service's validation fails, even where the fields look valid", async () => {
    const verdict = (code: string) => ({
      ...clientAnswer(),
      body: {
        success: true,
        data: {
          ...clientAnswer().body.data,
          validation: { valid: false, code, detail: 'refused by the license service' },
        },
      },
    });
    answer = verdict('TOO_MANY_USERS');
    const seats = await login();
    expect(seats.status).toBe(403);
    expect(await code(seats)).toBe('license_user_limit');
    answer = verdict('REVOKED'); // a code newer than this service: a refusal, not a pass
    const unknown = await login();
    expect(unknown.status).toBe(403);
    expect(await code(unknown)).toBe('license_invalid');
  });

  it('refuses with a clear 403 when the client is inactive', async () => {
    answer = clientAnswer({ is_active: false });
    const res = await login();
    expect(res.status).toBe(403);
    expect(await code(res)).toBe('license_inactive');
  });

  it('refuses when every license is expired or switched off', async () => {
    answer = clientAnswer({
      licenses: [
        { id: 'l-1', status: true, expired_date: past },
        { id: 'l-2', status: false, expired_date: future },
      ],
    });
    const res = await login();
    expect(res.status).toBe(403);
    expect(await code(res)).toBe('license_expired');
    const reg = await register('licensed-two');
    expect(reg.status).toBe(403);
    expect(await code(reg)).toBe('license_expired');
  });

  it('takes the seat at verification: beyond max_user the link is refused (and stays valid), not a login', async () => {
    answer = clientAnswer({ max_user: 2 }); // the admin and licensed-one
    // An unverified account takes no seat: registering is fine.
    expect((await register('licensed-three')).status).toBe(201);
    const token = await newMailedToken(address('licensed-three'), '/verify-email');
    const full = await platform.request('POST', '/auth/verify-email', { body: { token } });
    expect(full.status).toBe(403);
    expect(await code(full)).toBe('license_user_limit');
    expect((await login()).status).toBe(200);
    answer = clientAnswer({ max_user: 3 });
    const freed = await platform.request('POST', '/auth/verify-email', { body: { token } });
    expect(freed.status).toBe(200);
  });

  it('takes seats one at a time: of four verifications racing for the last seat one wins; reactivation takes a seat too', async () => {
    answer = clientAnswer();
    const admin = ((await (await login()).json()) as { access_token: string }).access_token;
    const active = async () => {
      const res = await platform.request('GET', '/users?limit=200', { token: admin });
      const { data } = (await res.json()) as {
        data: Array<{ is_active: boolean; email_verified: boolean }>;
      };
      // The seats: active users, verified when they registered themselves.
      return data.filter((user) => user.is_active && user.email_verified).length;
    };
    answer = clientAnswer({ max_user: (await active()) + 1 });
    const names = ['race-a', 'race-b', 'race-c', 'race-d'];
    const registered = await Promise.all(names.map(register));
    expect(registered.map((res) => res.status)).toEqual([201, 201, 201, 201]);
    const ids = await Promise.all(
      registered.map(async (res) => ((await res.json()) as { id: string }).id),
    );
    const racers = await Promise.all(names.map(verify));
    expect(racers.map((res) => res.status).sort()).toEqual([200, 403, 403, 403]);

    // Free a seat by deactivating the winner, fill it with a new account: reactivating the
    // winner would go beyond max_user.
    const winner = { id: ids[racers.findIndex((res) => res.status === 200)]! };
    const off = await platform.request('PATCH', `/users/${winner.id}`, {
      token: admin,
      body: { is_active: false },
    });
    expect(off.status).toBe(200);
    expect((await register('seat-filler')).status).toBe(201);
    expect((await verify('seat-filler')).status).toBe(200);
    const back = await platform.request('PATCH', `/users/${winner.id}`, {
      token: admin,
      body: { is_active: true },
    });
    expect(back.status).toBe(403);
    expect(await code(back)).toBe('license_user_limit');
  });

  it('refuses when the license service does not know the client, and fails closed when it is down', async () => {
    answer = { status: 404, body: { success: false, message: 'License not found' } };
    const missing = await login();
    expect(missing.status).toBe(403);
    expect(await code(missing)).toBe('license_not_found');
    answer = { status: 500, body: {} };
    const down = await login();
    expect(down.status).toBe(503);
    expect(await code(down)).toBe('license_unavailable');
  });

  it('fails closed when the license service answers after LICENSE_API_TIMEOUT_MS', async () => {
    answer = { ...clientAnswer(), delayMs: 3000 };
    const late = await login();
    expect(late.status).toBe(503);
    expect(await code(late)).toBe('license_unavailable');
    answer = clientAnswer();
    expect((await login()).status).toBe(200);
  });

  it('never logs the license credentials', () => {
    const all = platform.logs.lines.join('\n');
    expect(all).not.toContain('dash-pw-8');
    expect(all).not.toContain(Buffer.from('dash-admin:dash-pw-8').toString('base64'));
  });
});
