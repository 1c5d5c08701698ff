/**
 * The license API against real PostgreSQL: the seed's 200 and 404 shapes, Basic credentials
 * right, wrong and missing, the failed-attempt lock, and every validation code.
 */
import {
  ADMIN,
  basic,
  startLicensePlatform,
  type LicensePlatform,
} from './support/license-platform';

describe('license API', () => {
  let platform: LicensePlatform;
  const day = 86_400_000;

  beforeAll(async () => {
    platform = await startLicensePlatform({ LOGIN_MAX_ATTEMPTS: '3' });
    await platform.addAccount('api@vendor.test', 'api-password-123', 'license-api');
    await platform.addAccount('viewer@vendor.test', 'viewer-password-1', 'viewer');
    await platform.addAccount('locked@vendor.test', 'locked-password-1', 'license-api');
  });
  afterAll(() => platform?.stop());

  const get = (path: string, authorization?: string) =>
    fetch(`${platform.url}${path}`, { headers: authorization ? { authorization } : {} });
  const asApi = (path: string) => get(path, basic('api@vendor.test', 'api-password-123'));

  it('answers GET /api/health without credentials', async () => {
    const res = await get('/api/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      success: true,
      message: 'OK',
      timestamp: expect.any(String),
    });
  });

  it('returns a client with its licenses in the seed shape, with a validation', async () => {
    const id = await platform.addClient({ name: 'Acme', company_name: 'PT Acme', max_user: 10 }, [
      { license_name: 'Platform' },
    ]);
    const res = await asApi(`/api/licenses/${id}`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      success: true,
      data: {
        id,
        name: 'Acme',
        company_name: 'PT Acme',
        is_active: true,
        max_user: 10,
        licenses: [
          {
            id: expect.any(String),
            license_name: 'Platform',
            status: true,
            expired_date: expect.stringMatching(/Z$/),
          },
        ],
        validation: { valid: true, code: 'VALID' },
      },
    });
  });

  it('answers the seed 404 for an unknown or malformed client id', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await asApi(`/api/licenses/${id}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({
        success: false,
        message: 'License not found',
        validation: { code: 'NOT_FOUND' },
      });
    }
  });

  it('refuses missing, malformed and wrong credentials with 401 and a Basic challenge', async () => {
    const id = await platform.addClient();
    for (const authorization of [
      undefined,
      'Bearer abc',
      'Basic !!!',
      basic('api@vendor.test', 'wrong'),
      basic('nobody@vendor.test', 'x'),
    ]) {
      const res = await get(`/api/licenses/${id}`, authorization);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
      expect(await res.json()).toEqual({ success: false, message: 'Unauthenticated.' });
    }
  });

  it('accepts the first account (any dashboard account whose role allows the API)', async () => {
    const id = await platform.addClient();
    expect((await get(`/api/licenses/${id}`, basic(ADMIN.email, ADMIN.password))).status).toBe(200);
    const viewer = await get(
      `/api/licenses/${id}`,
      basic('viewer@vendor.test', 'viewer-password-1'),
    );
    expect(viewer.status).toBe(403);
    expect(await viewer.json()).toEqual({
      success: false,
      message: 'This account may not use the license API',
    });
  });

  it('locks an account after the failed-attempt limit, even for the right password', async () => {
    const id = await platform.addClient();
    for (let i = 0; i < 3; i++) {
      expect(
        (await get(`/api/licenses/${id}`, basic('locked@vendor.test', `guess-${i}`))).status,
      ).toBe(401);
    }
    expect(
      (await get(`/api/licenses/${id}`, basic('locked@vendor.test', 'locked-password-1'))).status,
    ).toBe(401);
    const { rows } = await platform.db.query(
      `select failed_attempts, locked_until > now() as locked from admin_users where email = 'locked@vendor.test'`,
    );
    expect(rows[0]).toEqual({ failed_attempts: 3, locked: true });
  });

  it('tells each validation code', async () => {
    const cases: Array<[string, Parameters<LicensePlatform['addClient']>, string, boolean]> = [
      ['inactive client', [{ is_active: false }, [{}]], 'CLIENT_INACTIVE', false],
      ['no license', [{}, []], 'NOT_FOUND', false],
      ['suspended', [{}, [{ status: false }]], 'SUSPENDED', false],
      [
        'expired',
        [{}, [{ expired_date: new Date(Date.now() - day) }, { status: false }]],
        'EXPIRED',
        false,
      ],
      [
        'one valid among expired',
        [{}, [{ expired_date: new Date(Date.now() - day) }, {}]],
        'VALID',
        true,
      ],
      ['no expiry date', [{}, [{ expired_date: null }]], 'VALID', true],
    ];
    for (const [, args, code, valid] of cases) {
      const id = await platform.addClient(...args);
      const body = (await (await asApi(`/api/licenses/${id}`)).json()) as {
        data: { validation: unknown };
      };
      expect(body.data.validation).toMatchObject({ code, valid });
    }
  });

  it('says TOO_MANY_USERS when the seats asked for exceed max_user', async () => {
    const id = await platform.addClient({ max_user: 2 });
    const at = async (users: number) => {
      const res = await asApi(`/api/licenses/${id}?users=${users}`);
      return ((await res.json()) as { data: { validation: { code: string } } }).data.validation
        .code;
    };
    expect(await at(2)).toBe('VALID');
    expect(await at(3)).toBe('TOO_MANY_USERS');
    const bad = await asApi(`/api/licenses/${id}?users=-1`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ success: false, message: expect.any(String) });
  });

  it('answers unknown paths with 404: JSON under /api/, an HTML page elsewhere', async () => {
    const api = await fetch(`${platform.url}/api/nothing-here`);
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({
      success: false,
      message: 'No route for GET /api/nothing-here',
    });
    const page = await fetch(`${platform.url}/nothing-here`);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('There is no such page.');
  });

  it('answers 403 on the blocked livewire upload paths', async () => {
    for (const [method, path] of [
      ['POST', '/livewire/upload-file'],
      ['GET', '/livewire/preview-file/a/b.png'],
    ]) {
      const res = await fetch(`${platform.url}${path}`, { method });
      expect(res.status).toBe(403);
    }
  });

  it('counts the answers by outcome on /metrics', async () => {
    const text = await (await fetch(`${platform.url}/metrics`)).text();
    for (const outcome of [
      'VALID',
      'NOT_FOUND',
      'SUSPENDED',
      'EXPIRED',
      'TOO_MANY_USERS',
      'CLIENT_INACTIVE',
      'unauthenticated',
      'forbidden',
    ]) {
      expect(text).toMatch(new RegExp(`license_api_checks_total\\{outcome="${outcome}"\\} [1-9]`));
    }
  });

  it('kept every password out of the logs', () => {
    const text = platform.logs.lines.join('\n');
    for (const secret of [ADMIN.password, 'api-password-123', 'locked-password-1'])
      expect(text).not.toContain(secret);
  });
});
