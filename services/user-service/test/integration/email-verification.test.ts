/**
 * E-mail verification of self-registered accounts, against the real SMTP receiver, PostgreSQL,
 * Redis and OPA: until its owner follows the mailed link an account cannot log in, is not in
 * OPA's data and takes no license seat; links are single-use, expire, and a new one (resend)
 * ends the older ones; resending says nothing about who registered.
 */
import { randomBytes } from 'node:crypto';
import { waitFor } from '@pelita/testenv';
import { mailedTokens, newMailedToken } from './support/mailbox';
import { ADMIN, startPlatform, type Platform } from './support/platform';

const unique = () => randomBytes(4).toString('hex');

describe('e-mail verification of registered accounts', () => {
  // `platform`'s links outlive every test; `expiring`'s end after EXPIRY_SECONDS, for the tests
  // of expiry. One short lifetime for all tests failed on a loaded machine: the logins a test
  // makes while its link must still work (scrypt, 0.4 s of CPU each) outlasted it.
  const EXPIRY_SECONDS = 5;
  let platform: Platform;
  let expiring: Platform;

  beforeAll(async () => {
    const settings = {
      REGISTRATION_ENABLED: 'true',
      // Longer than a mail takes to arrive on a loaded machine: the test's immediate second
      // resend must fall inside the window even when waiting for the first mail was slow.
      VERIFICATION_RESEND_SECONDS: '4',
    };
    [platform, expiring] = await Promise.all([
      startPlatform(settings),
      startPlatform({ ...settings, EMAIL_VERIFICATION_TTL_SECONDS: String(EXPIRY_SECONDS) }),
    ]);
    await Promise.all(
      [platform, expiring].map((on) =>
        waitFor(() => on.allows(ADMIN.username, 'GET', '/users'), 'the admin in OPA'),
      ),
    );
  });
  afterAll(() => Promise.all([platform?.stop(), expiring?.stop()]));

  async function register(on = platform) {
    const username = `v${unique()}`;
    const email = `${username}@pelita.test`;
    const password = 'verify-pw-1234';
    const res = await on.request('POST', '/auth/register', {
      body: { email, username, full_name: 'To Verify', password },
    });
    expect(res.status).toBe(201);
    return { email, username, password };
  }
  const login = (email: string, password: string, on = platform) =>
    on.request('POST', '/auth/login', { body: { email, password } });
  const verify = (token: string, on = platform) =>
    on.request('POST', '/auth/verify-email', { body: { token } });
  const errorCode = async (res: Response) =>
    ((await res.json()) as { error: { code: string } }).error.code;
  const inOpaData = async (username: string) => {
    const data = (await (await fetch(`${platform.opa.url}/v1/data/user_roles`)).json()) as {
      result?: Record<string, unknown>;
    };
    return data.result?.[username] !== undefined;
  };

  it('keeps an account out until its link is followed; the link works once', async () => {
    const account = await register();
    const refused = await login(account.email, account.password);
    expect(refused.status).toBe(403);
    expect(await errorCode(refused)).toBe('email_not_verified');
    // A wrong password still answers as for anyone: the refusal above needs the password.
    expect((await login(account.email, 'not-the-password')).status).toBe(401);
    await platform.service.outbox!.drained();
    expect(await inOpaData(account.username)).toBe(false);

    const token = await newMailedToken(account.email, '/verify-email');
    expect((await verify(token)).status).toBe(200);
    expect((await login(account.email, account.password)).status).toBe(200);
    await waitFor(() => inOpaData(account.username), 'the verified user in OPA');
    const again = await verify(token);
    expect(again.status).toBe(400);
    expect(await errorCode(again)).toBe('invalid_verification_token');
  });

  it('ends a link at its expiry; a resent link works and ends the older ones', async () => {
    const account = await register(expiring);
    const first = await newMailedToken(account.email, '/verify-email');
    await new Promise((resolve) => setTimeout(resolve, EXPIRY_SECONDS * 1000 + 500));
    expect((await verify(first, expiring)).status).toBe(400);

    const resend = () =>
      expiring.request('POST', '/auth/resend-verification', { body: { email: account.email } });
    expect((await resend()).status).toBe(202);
    const second = await newMailedToken(account.email, '/verify-email', [first]);
    // At most one link in 4 s here (VERIFICATION_RESEND_SECONDS): an immediate resend is
    // answered the same and mails nothing, so nobody floods an address with links.
    expect((await resend()).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await mailedTokens(account.email, '/verify-email')).sort()).toEqual(
      [first, second].sort(),
    );
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect((await resend()).status).toBe(202);
    const third = await newMailedToken(account.email, '/verify-email', [first, second]);
    expect((await verify(second, expiring)).status).toBe(400);
    expect((await verify(third, expiring)).status).toBe(200);
    expect((await login(account.email, account.password, expiring)).status).toBe(200);
  });

  it('gives an address back once an account holding it was never confirmed and its link expired', async () => {
    const squatter = await register(expiring);
    const again = {
      email: squatter.email,
      username: `w${unique()}`,
      full_name: 'Owner',
      password: 'owner-pw-12345',
    };
    // Within the link's lifetime the address is taken...
    expect((await expiring.request('POST', '/auth/register', { body: again })).status).toBe(409);
    await new Promise((resolve) => setTimeout(resolve, EXPIRY_SECONDS * 1000 + 500));
    // ... after it, the unconfirmed account gives way, and its old links lead nowhere.
    const old = await newMailedToken(squatter.email, '/verify-email');
    expect((await expiring.request('POST', '/auth/register', { body: again })).status).toBe(201);
    expect((await verify(old, expiring)).status).toBe(400);
    const fresh = await newMailedToken(squatter.email, '/verify-email', [old]);
    expect((await verify(fresh, expiring)).status).toBe(200);
    expect((await login(squatter.email, 'owner-pw-12345', expiring)).status).toBe(200);
    expect((await login(squatter.email, squatter.password, expiring)).status).toBe(401);
  });

  it('answers a resend alike for unknown, verified and waiting accounts, mailing only the last', async () => {
    const waiting = await register();
    await newMailedToken(waiting.email, '/verify-email');
    await new Promise((resolve) => setTimeout(resolve, 4100)); // VERIFICATION_RESEND_SECONDS
    const answers = await Promise.all(
      [`ghost-${unique()}@pelita.test`, ADMIN.email, waiting.email].map(async (email) => {
        const res = await platform.request('POST', '/auth/resend-verification', {
          body: { email },
        });
        return { status: res.status, body: await res.json() };
      }),
    );
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    await waitFor(
      async () => (await mailedTokens(waiting.email, '/verify-email')).length === 2,
      'the resent link',
    );
    expect(await mailedTokens(ADMIN.email, '/verify-email')).toEqual([]);
  });

  it('shows administrators whether an address is confirmed', async () => {
    const account = await register();
    const admin = (await platform.login(ADMIN.email, ADMIN.password)).access_token;
    const list = (await (
      await platform.request('GET', '/users?limit=200', { token: admin })
    ).json()) as { data: Array<{ username: string; email_verified: boolean }> };
    expect(list.data.find((user) => user.username === account.username)?.email_verified).toBe(
      false,
    );
    expect(list.data.find((user) => user.username === ADMIN.username)?.email_verified).toBe(true);
  });
});
