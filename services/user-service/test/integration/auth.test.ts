/**
 * Authentication against the real servers: PostgreSQL (users), Redis (sessions, limits, reset
 * tokens), the SMTP receiver (reset e-mails), OPA with policies/ fed by the real policy-sync.
 */
import { randomBytes } from 'node:crypto';
import { verifyAccessToken } from '@pelita/kit';
import { createPublicKey } from 'node:crypto';
import { waitFor } from '@pelita/testenv';
import { ADMIN, startPlatform, type Platform } from './support/platform';
import { messagesTo, newMailedToken } from './support/mailbox';

const unique = () => randomBytes(4).toString('hex');

describe('authentication', () => {
  let platform: Platform;

  beforeAll(async () => {
    platform = await startPlatform({ LOGIN_MAX_ATTEMPTS: '3', REGISTRATION_ENABLED: 'true' });
    await waitFor(
      () => platform.allows(ADMIN.username, 'GET', '/users'),
      'the admin grants in OPA',
    );
  });
  afterAll(() => platform?.stop());

  async function register(password = 'registered-pw-1') {
    const name = `u${unique()}`;
    const email = `${name}@pelita.test`;
    const res = await platform.request('POST', '/auth/register', {
      body: { email, username: name, full_name: 'Test User', password },
    });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { id: string }).id;
    // Usable once its owner follows the mailed link (email-verification.test.ts).
    const token = await newMailedToken(email, '/verify-email');
    const verified = await platform.request('POST', '/auth/verify-email', { body: { token } });
    expect(verified.status).toBe(200);
    return { email, username: name, password, id };
  }

  it('logs the first admin in with a token the public key verifies, and the guard lets it through', async () => {
    const tokens = await platform.login(ADMIN.email, ADMIN.password);
    const key = (await (await platform.request('GET', '/auth/public-key')).json()) as {
      pem: string;
      jwk: { kty: string; crv: string };
    };
    expect(key.jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    const claims = verifyAccessToken(tokens.access_token, createPublicKey(key.pem));
    expect(claims.username).toBe(ADMIN.username);
    const users = await platform.request('GET', '/users', { token: tokens.access_token });
    expect(users.status).toBe(200);
  });

  it('answers 401 for a wrong password or an unknown e-mail, with the same body', async () => {
    const wrong = await platform.request('POST', '/auth/login', {
      body: { email: ADMIN.email, password: 'nope-nope' },
    });
    const unknown = await platform.request('POST', '/auth/login', {
      body: { email: `ghost-${unique()}@pelita.test`, password: 'nope-nope' },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.json()).toEqual(await unknown.json());
  });

  it('slows an account after failed logins with 429 and Retry-After, and lets its owner in after the wait', async () => {
    const user = await register();
    for (let i = 0; i < 3; i++) {
      const res = await platform.request('POST', '/auth/login', {
        body: { email: user.email, password: 'wrong-pw' },
      });
      expect(res.status).toBe(401);
    }
    const limited = await platform.request('POST', '/auth/login', {
      body: { email: user.email, password: user.password },
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe(
      'too_many_requests',
    );
    // A backoff, not a lock: whoever knows the e-mail cannot lock its owner out for the window.
    const wait = Number(limited.headers.get('retry-after'));
    expect(wait).toBeLessThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    const owner = await platform.request('POST', '/auth/login', {
      body: { email: user.email, password: user.password },
    });
    expect(owner.status).toBe(200);
  });

  it('rotates refresh tokens, and a replayed one ends the session', async () => {
    const user = await register();
    const first = await platform.login(user.email, user.password);
    const refreshed = await platform.request('POST', '/auth/refresh', {
      body: { refresh_token: first.refresh_token },
    });
    expect(refreshed.status).toBe(200);
    const second = (await refreshed.json()) as { access_token: string; refresh_token: string };
    expect(second.refresh_token).not.toBe(first.refresh_token);
    // The old access token's session was replaced by the new one.
    expect(
      (await platform.request('POST', '/auth/logout', { token: first.access_token })).status,
    ).toBe(401);

    const replay = await platform.request('POST', '/auth/refresh', {
      body: { refresh_token: first.refresh_token },
    });
    expect(replay.status).toBe(401);
    // The replay revoked the whole session: the newest tokens die too.
    expect(
      (
        await platform.request('POST', '/auth/refresh', {
          body: { refresh_token: second.refresh_token },
        })
      ).status,
    ).toBe(401);
    expect(
      (await platform.request('POST', '/auth/logout', { token: second.access_token })).status,
    ).toBe(401);
  });

  it('logout revokes the session at once: the access token and the refresh token stop working', async () => {
    const tokens = await platform.login(ADMIN.email, ADMIN.password);
    expect((await platform.request('GET', '/roles', { token: tokens.access_token })).status).toBe(
      200,
    );
    expect(
      (await platform.request('POST', '/auth/logout', { token: tokens.access_token })).status,
    ).toBe(204);
    expect((await platform.request('GET', '/roles', { token: tokens.access_token })).status).toBe(
      401,
    );
    expect(
      (
        await platform.request('POST', '/auth/refresh', {
          body: { refresh_token: tokens.refresh_token },
        })
      ).status,
    ).toBe(401);
  });

  it('refuses a second registration with the same e-mail (409)', async () => {
    const user = await register();
    const again = await platform.request('POST', '/auth/register', {
      body: {
        email: user.email.toUpperCase(),
        username: `x${unique()}`,
        full_name: 'X',
        password: 'another-pw-1',
      },
    });
    expect(again.status).toBe(409);
  });

  it('mails a single-use reset link; the reset ends every session and sets the new password', async () => {
    const user = await register();
    const session = await platform.login(user.email, user.password);
    const forgot = await platform.request('POST', '/auth/forgot-password', {
      body: { email: user.email },
    });
    const ghost = await platform.request('POST', '/auth/forgot-password', {
      body: { email: `ghost-${unique()}@pelita.test` },
    });
    expect(forgot.status).toBe(202);
    expect(ghost.status).toBe(202);
    expect(await forgot.json()).toEqual(await ghost.json());

    // A second request: two links are out; the reset with one ends the other too.
    await platform.request('POST', '/auth/forgot-password', { body: { email: user.email } });
    let tokens: string[] = [];
    await waitFor(async () => {
      tokens = (await messagesTo(user.email)).flatMap((mail) => {
        const match = /https:\/\/app\.pelita\.test\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(
          mail,
        );
        return match?.[1] ? [match[1]] : [];
      });
      return tokens.length === 2;
    }, 'the two reset e-mails');
    const [token, other] = tokens as [string, string];

    const reset = await platform.request('POST', '/auth/reset-password', {
      body: { token, password: 'brand-new-pw-9' },
    });
    expect(reset.status).toBe(200);
    expect(
      (await platform.request('POST', '/auth/logout', { token: session.access_token })).status,
    ).toBe(401);
    expect(
      (
        await platform.request('POST', '/auth/refresh', {
          body: { refresh_token: session.refresh_token },
        })
      ).status,
    ).toBe(401);
    const reused = await platform.request('POST', '/auth/reset-password', {
      body: { token, password: 'another-pw-99' },
    });
    expect(reused.status).toBe(400);
    const older = await platform.request('POST', '/auth/reset-password', {
      body: { token: other, password: 'another-pw-99' },
    });
    expect(older.status).toBe(400);
    await platform.login(user.email, 'brand-new-pw-9');
    const old = await platform.request('POST', '/auth/login', {
      body: { email: user.email, password: user.password },
    });
    expect(old.status).toBe(401);
  });

  it('keeps passwords and tokens out of every log line', async () => {
    const user = await register('log-secret-pw-7');
    const tokens = await platform.login(user.email, user.password);
    await platform.request('POST', '/auth/refresh', {
      body: { refresh_token: tokens.refresh_token },
    });
    await platform.request('POST', '/auth/refresh', {
      body: { refresh_token: tokens.refresh_token },
    }); // replay: logged
    // The access log line is written when the answer finishes, maybe after the client has it:
    // wait for the last request's line, so every earlier line is there too.
    const requestId = `log-check-${unique()}`;
    await platform.request('GET', '/users', {
      token: tokens.access_token,
      headers: { 'x-request-id': requestId },
    });
    await waitFor(
      () => platform.logs.lines.some((line) => line.includes(requestId)),
      'the access log line of the last request',
    );
    const all = platform.logs.lines.join('\n');
    for (const secret of [
      'log-secret-pw-7',
      ADMIN.password,
      tokens.access_token,
      tokens.refresh_token.split('.')[1]!,
    ]) {
      expect(all).not.toContain(secret);
    }
  });

  it('counts logins by outcome and tokens issued', async () => {
    const samples = {
      success: ['user_service_logins_total', { outcome: 'success' }],
      invalid: ['user_service_logins_total', { outcome: 'invalid_credentials' }],
      limited: ['user_service_logins_total', { outcome: 'rate_limited' }],
      loginAccess: ['user_service_tokens_issued_total', { kind: 'access', flow: 'login' }],
      refreshAccess: ['user_service_tokens_issued_total', { kind: 'access', flow: 'refresh' }],
      reuse: ['user_service_refresh_token_reuse_total', {}],
    } as const;
    const read = async () => {
      const values: Record<string, number> = {};
      for (const [key, [name, labels]] of Object.entries(samples)) {
        values[key] = await platform.metric(name, labels);
      }
      return values;
    };
    const before = await read();

    const user = await register('metric-pw-1');
    const tokens = await platform.login(user.email, user.password);
    await platform.request('POST', '/auth/refresh', {
      body: { refresh_token: tokens.refresh_token },
    });
    const replay = await platform.request('POST', '/auth/refresh', {
      body: { refresh_token: tokens.refresh_token },
    });
    expect(replay.status).toBe(401);
    // LOGIN_MAX_ATTEMPTS is 3: three wrong passwords, then the fourth attempt is limited.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await platform.request('POST', '/auth/login', {
        body: { email: user.email, password: 'wrong-pw-000' },
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);

    const after = await read();
    const delta = Object.fromEntries(Object.keys(samples).map((k) => [k, after[k]! - before[k]!]));
    expect(delta).toEqual({
      success: 1,
      invalid: 3,
      limited: 1,
      loginAccess: 1,
      refreshAccess: 1,
      reuse: 1,
    });
  });
});
