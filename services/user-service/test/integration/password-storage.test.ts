/**
 * Password storage at the production cost, against the real PostgreSQL: the other integration
 * tests run the service with a cheap test hasher (support/platform.ts), this one with the hasher
 * `main.ts` gets, `scryptPasswords()`, and checks what it stores, that a hash of an older, cheaper
 * cost is replaced at login, and that an unknown e-mail is checked against a full-cost hash.
 */
import { randomBytes, scrypt } from 'node:crypto';
import { OWASP_SCRYPT, scryptPasswords, type PasswordHasher } from '@pelita/kit';
import { waitFor } from '@pelita/testenv';
import pg from 'pg';
import { ADMIN, startPlatform, type Platform } from './support/platform';

const CURRENT_COST = /^scrypt\$131072\$8\$1\$[^$]+\$[^$]+$/;

describe('password storage at the production cost', () => {
  const production = scryptPasswords();
  /** The stored hash each password check of the service was made against. */
  const checkedAgainst: string[] = [];
  const recording: PasswordHasher = {
    ...production,
    verify: (password, stored) => {
      checkedAgainst.push(stored);
      return production.verify(password, stored);
    },
  };
  let platform: Platform;
  let db: pg.Client;

  beforeAll(async () => {
    platform = await startPlatform({}, { passwords: recording });
    db = new pg.Client({ connectionString: platform.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await platform?.stop();
  });

  const storedHash = async (email: string) =>
    (
      await db.query<{ hash: string }>('select password_hash as hash from users where email = $1', [
        email,
      ])
    ).rows[0]?.hash;

  it("stores the first admin's and a new user's password at OWASP's scrypt cost", async () => {
    expect(OWASP_SCRYPT).toEqual({ N: 2 ** 17, r: 8, p: 1 });
    expect(await storedHash(ADMIN.email)).toMatch(CURRENT_COST);
    await waitFor(
      () => platform.allows(ADMIN.username, 'POST', '/users'),
      'the admin grants in OPA',
    );
    const { access_token } = await platform.login(ADMIN.email, ADMIN.password);
    const roles = (
      (await (await platform.request('GET', '/roles', { token: access_token })).json()) as {
        data: Array<{ id: number; name: string }>;
      }
    ).data;
    const username = `u${randomBytes(4).toString('hex')}`;
    const created = await platform.request('POST', '/users', {
      token: access_token,
      body: {
        email: `${username}@pelita.test`,
        username,
        full_name: 'Stored',
        password: 'stored-pw-1234',
        role_id: roles.find((role) => role.name === 'user')!.id,
      },
    });
    expect(created.status).toBe(201);
    expect(await storedHash(`${username}@pelita.test`)).toMatch(CURRENT_COST);
  });

  it('replaces a hash of the older, cheaper cost at the next login', async () => {
    // The hash an earlier version stored (scrypt N = 2^14), put in place of the admin's.
    const salt = randomBytes(16);
    const key = await new Promise<Buffer>((resolve, reject) =>
      scrypt(ADMIN.password, salt, 64, { N: 16_384, r: 8, p: 1 }, (err, out) =>
        err ? reject(err) : resolve(out),
      ),
    );
    const older = ['scrypt', 16_384, 8, 1, salt.toString('base64'), key.toString('base64')];
    await db.query('update users set password_hash = $2 where email = $1', [
      ADMIN.email,
      older.join('$'),
    ]);
    await platform.login(ADMIN.email, ADMIN.password);
    const rehashed = await storedHash(ADMIN.email);
    expect(rehashed).toMatch(CURRENT_COST);
    await expect(production.verify(ADMIN.password, rehashed!)).resolves.toBe(true);
    await platform.login(ADMIN.email, ADMIN.password);
  });

  it('checks an unknown e-mail against an unusable hash of the same cost', async () => {
    checkedAgainst.length = 0;
    const res = await platform.request('POST', '/auth/login', {
      body: {
        email: `nobody-${randomBytes(4).toString('hex')}@pelita.test`,
        password: 'x-pw-1234',
      },
    });
    expect(res.status).toBe(401);
    expect(checkedAgainst).toEqual([production.unusableHash]);
    expect(production.unusableHash).toMatch(CURRENT_COST);
  });
});
