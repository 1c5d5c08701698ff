/**
 * What keeps outsiders from taking the license API (and the dashboard's login) down, against real
 * PostgreSQL, with each request's client address given in X-Forwarded-For (one trusted proxy):
 * an address's failures are throttled before any password is hashed, hashes run under a cap,
 * and the API's lock and the dashboard's are apart, the API's sparing addresses that passed.
 * The service hashes at the production cost here (the cap is about what a hash costs), and the
 * stored cost and the unknown account's full hash are asserted.
 */
import { OWASP_SCRYPT, scryptPasswords } from '@pelita/kit';
import { DashboardClient } from './support/dashboard-client';
import {
  ADMIN,
  basic,
  startLicensePlatform,
  type LicensePlatform,
} from './support/license-platform';

describe('abuse guards of the password checks', () => {
  let platform: LicensePlatform;
  let client = '';
  const PASSWORD = 'guarded-password-12';
  let nextAddress = 1;
  /** A client address no earlier request came from. */
  const freshAddress = () => `198.51.100.${nextAddress++}`;

  beforeAll(async () => {
    platform = await startLicensePlatform(
      {
        TRUST_PROXY: '1',
        LOGIN_MAX_ATTEMPTS: '3',
        LOGIN_ADDRESS_MAX_FAILURES: '3',
        PASSWORD_CHECK_CONCURRENCY: '1',
        PASSWORD_CHECK_MAX_WAIT_MS: '300',
      },
      { passwords: scryptPasswords() },
    );
    const accounts = [
      'api@vendor.test',
      'tenant@vendor.test',
      'both@vendor.test',
      'legacy@vendor.test',
    ];
    for (const email of accounts) {
      await platform.addAccount(email, PASSWORD, 'license-api');
    }
    await platform.addAccount('ops@vendor.test', PASSWORD, 'operator');
    client = await platform.addClient({ name: 'Guarded' });
  });
  afterAll(() => platform?.stop());

  const api = (email: string, password: string, address: string) =>
    fetch(`${platform.url}/api/licenses/${client}`, {
      headers: { authorization: basic(email, password), 'x-forwarded-for': address },
    });
  const hashes = async () => {
    const text = await (await fetch(`${platform.url}/metrics`)).text();
    return Number(/^license_password_checks_total\{outcome="hashed"\} (\d+)/m.exec(text)?.[1] ?? 0);
  };

  it("stores the first account's password at OWASP's scrypt cost", async () => {
    expect(OWASP_SCRYPT.N).toBe(2 ** 17);
    const { rows } = await platform.db.query<{ hash: string }>(
      'select password_hash as hash from admin_users where email = $1',
      [ADMIN.email],
    );
    expect(rows[0]?.hash).toMatch(/^scrypt\$131072\$8\$1\$[^$]+\$[^$]+$/);
  });

  it('replaces a cheaper hash from an earlier release at the next successful check', async () => {
    const email = 'legacy@vendor.test';
    const older = await scryptPasswords({ N: 2 ** 14, r: 8, p: 1 }).hash(PASSWORD);
    await platform.db.query('update admin_users set password_hash = $1 where email = $2', [
      older,
      email,
    ]);
    const stored = async () =>
      (
        await platform.db.query<{ hash: string }>(
          'select password_hash as hash from admin_users where email = $1',
          [email],
        )
      ).rows[0]?.hash;

    expect((await api(email, 'not-the-password-1', freshAddress())).status).toBe(401);
    expect(await stored()).toBe(older);
    expect((await api(email, PASSWORD, freshAddress())).status).toBe(200);
    const fresh = await stored();
    expect(fresh).toMatch(/^scrypt\$131072\$8\$1\$/);
    await expect(scryptPasswords().verify(PASSWORD, fresh!)).resolves.toBe(true);
    // The next check is remembered against the new hash: nothing is hashed again.
    const before = await hashes();
    expect((await api(email, PASSWORD, freshAddress())).status).toBe(200);
    expect(await hashes()).toBe(before);
  });

  it('hashes for an unknown e-mail too, so a miss costs what a hit costs', async () => {
    const before = await hashes();
    expect((await api('nobody-else@vendor.test', PASSWORD, freshAddress())).status).toBe(401);
    expect(await hashes()).toBe(before + 1);
  });

  it("answers an address's failures past the limit with 429 and Retry-After, hashing nothing", async () => {
    const attacker = freshAddress();
    // Guesses at accounts that do not exist: only the address is held to account.
    for (let i = 0; i < 3; i++) {
      expect((await api(`nobody-${i}@vendor.test`, 'guess', attacker)).status).toBe(401);
    }
    const before = await hashes();
    for (const password of ['guess-4', PASSWORD]) {
      const res = await api('api@vendor.test', password, attacker);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await res.json()).toEqual({
        success: false,
        message: expect.stringMatching(/try again/),
      });
    }
    expect(await hashes()).toBe(before);
    // Another address is not held back by this one's failures.
    expect((await api('api@vendor.test', PASSWORD, freshAddress())).status).toBe(200);
  });

  it('throttles the dashboard login form the same way', async () => {
    const visitor = new DashboardClient(platform.url, freshAddress());
    for (let i = 0; i < 3; i++) {
      expect((await visitor.password(`nobody-${i}@vendor.test`, 'guess')).status).toBe(401);
    }
    const before = await hashes();
    const throttled = await visitor.password('ops@vendor.test', PASSWORD);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(throttled.text).toContain('Too many failed attempts from this address');
    expect(await hashes()).toBe(before);
  });

  it('caps the hashes running at once: the excess waits briefly, then gets 503', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api(`nobody-${i}@vendor.test`, 'wrong-password', freshAddress()),
      ),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(1);
    const busy = answers.filter((res) => res.status === 503);
    expect(busy.length).toBeGreaterThanOrEqual(4);
    for (const res of busy) expect(res.headers.get('retry-after')).toBe('1');
    expect(statuses.every((s) => s === 401 || s === 503)).toBe(true);
  });

  it('does not lock the dashboard sign-in after wrong Basic attempts', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await api('ops@vendor.test', `guess-${i}`, freshAddress())).status).toBe(401);
    }
    // The API is locked for addresses it has not seen pass...
    expect((await api('ops@vendor.test', PASSWORD, freshAddress())).status).toBe(401);
    // ...the dashboard is not.
    const owner = new DashboardClient(platform.url, freshAddress());
    const step = await owner.password('ops@vendor.test', PASSWORD);
    expect(step.status).toBe(303);
    expect(step.location).toBe('/login/enrol');
  });

  it('does not lock the license API after wrong dashboard passwords', async () => {
    for (let i = 0; i < 3; i++) {
      const guesser = new DashboardClient(platform.url, freshAddress());
      expect((await guesser.password('both@vendor.test', `guess-${i}`)).status).toBe(401);
    }
    const locked = await platform.db.query<{ locked: boolean }>(
      `select dashboard_locked_until > now() as locked from admin_users where email = 'both@vendor.test'`,
    );
    expect(locked.rows[0]!.locked).toBe(true);
    expect((await api('both@vendor.test', PASSWORD, freshAddress())).status).toBe(200);
  });

  it("keeps answering a tenant's own address while guesses from elsewhere lock its account", async () => {
    const tenant = freshAddress();
    expect((await api('tenant@vendor.test', PASSWORD, tenant)).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      expect((await api('tenant@vendor.test', `guess-${i}`, freshAddress())).status).toBe(401);
    }
    const stranger = await api('tenant@vendor.test', PASSWORD, freshAddress());
    expect(stranger.status).toBe(401);
    const own = await api('tenant@vendor.test', PASSWORD, tenant);
    expect(own.status).toBe(200);
  });
});
