/** Login, refresh rotation and logout with fakes of the user repository, sessions and limiter. */
import { generateKeyPairSync } from 'node:crypto';
import { HttpError, scryptPasswords, verifyAccessToken, type PasswordHasher } from '@pelita/kit';
import { testPasswords } from '@pelita/kit/testing';
import { Registry } from 'prom-client';
import { createAuthMetrics } from '../../../src/auth/auth-metrics';
import { TooManyAttemptsError, createLoginSessions } from '../../../src/auth/login-sessions';
import { capturedLogger, fakeSessions, fakeUsers, user } from './fakes';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });

/** The hasher these tests log in with, recording the stored hash each check was made against. */
function recordingPasswords(passwords: PasswordHasher = testPasswords()) {
  const checkedAgainst: string[] = [];
  return {
    checkedAgainst,
    passwords: {
      ...passwords,
      verify: (password: string, stored: string) => {
        checkedAgainst.push(stored);
        return passwords.verify(password, stored);
      },
    },
  };
}

async function setup(
  options: {
    waitSeconds?: number;
    licenseRefuses?: boolean;
    passwords?: PasswordHasher;
    adaHash?: string;
  } = {},
) {
  const passwords = options.passwords ?? testPasswords();
  const ada = user({ passwordHash: options.adaHash ?? (await passwords.hash('ada-pw-1234')) });
  const users = fakeUsers(
    ada,
    user({ id: 'u-2', email: 'off@pelita.test', isActive: false, passwordHash: ada.passwordHash }),
  );
  const sessions = fakeSessions();
  const resets: string[] = [];
  const failures: string[] = [];
  const registry = new Registry();
  const metrics = createAuthMetrics(registry);
  const loginSessions = createLoginSessions({
    users,
    sessions,
    limiter: {
      attempt: () => Promise.resolve(options.waitSeconds ?? 0),
      failed: (email) => {
        failures.push(email);
        return Promise.resolve();
      },
      succeeded: (email) => {
        resets.push(email);
        return Promise.resolve();
      },
    },
    license: {
      assertLicensed: () =>
        options.licenseRefuses
          ? Promise.reject(new HttpError(403, 'license_expired', 'expired'))
          : Promise.resolve(),
    },
    metrics,
    logger: capturedLogger().logger,
    privateKey,
    publicKey,
    accessTtlSeconds: 900,
    refreshTtlSeconds: 3600,
    passwords,
  });
  const count = async (outcome: string) =>
    (await metrics.logins.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
  return { ada, users, sessions, resets, failures, metrics, loginSessions, count };
}

describe('login', () => {
  it('issues a pair whose access token names the user and the session it opened', async () => {
    const { loginSessions, sessions, resets, count } = await setup();
    const { tokens, user: who } = await loginSessions.login(
      'ADA@pelita.test',
      'ada-pw-1234',
      '10.0.0.1',
    );
    expect(who).toEqual({ id: 'u-1', username: 'ada' });
    const claims = verifyAccessToken(tokens.accessToken, publicKey);
    expect(claims).toMatchObject({ sub: 'u-1', username: 'ada' });
    const [sid] = tokens.refreshToken.split('.');
    expect(sessions.live.get(sid!)).toMatchObject({ user: 'u-1', jti: claims.jti });
    expect(tokens).toMatchObject({
      expiresInSeconds: 900,
      refreshExpiresInSeconds: 3600,
    });
    expect(resets).toEqual(['ADA@pelita.test']);
    expect(await count('success')).toBe(1);
  });

  it('answers a wrong password and an unknown e-mail alike, opening no session', async () => {
    const { loginSessions, sessions, count, failures } = await setup();
    for (const [email, password] of [
      ['ada@pelita.test', 'wrong-pw-1234'],
      ['nobody@pelita.test', 'ada-pw-1234'],
    ] as const) {
      await expect(loginSessions.login(email, password, '10.0.0.1')).rejects.toMatchObject({
        status: 401,
        code: 'invalid_credentials',
      });
    }
    expect(sessions.live.size).toBe(0);
    expect(await count('invalid_credentials')).toBe(2);
    // Both count against the limits, the unknown account too.
    expect(failures).toEqual(['ada@pelita.test', 'nobody@pelita.test']);
  });

  it("checks an unknown e-mail against the hasher's unusable hash: a miss costs what a hit costs", async () => {
    const { passwords, checkedAgainst } = recordingPasswords();
    const { loginSessions, ada } = await setup({ passwords });
    await expect(
      loginSessions.login('nobody@pelita.test', 'ada-pw-1234', 'ip'),
    ).rejects.toMatchObject({ status: 401 });
    await loginSessions.login('ada@pelita.test', 'ada-pw-1234', 'ip');
    expect(checkedAgainst).toEqual([passwords.unusableHash, ada.passwordHash]);
  });

  it("stores a hash at the hasher's cost when the stored one is cheaper, once", async () => {
    const older = await scryptPasswords({ N: 2 ** 9, r: 8, p: 1 }).hash('ada-pw-1234');
    const { loginSessions, users } = await setup({ adaHash: older });
    await loginSessions.login('ada@pelita.test', 'ada-pw-1234', 'ip');
    const rehashed = users.byId.get('u-1')!.passwordHash;
    expect(rehashed).toMatch(/^scrypt\$1024\$8\$1\$/);
    await expect(testPasswords().verify('ada-pw-1234', rehashed)).resolves.toBe(true);
    await loginSessions.login('ada@pelita.test', 'ada-pw-1234', 'ip');
    expect(users.byId.get('u-1')!.passwordHash).toBe(rehashed);
  });

  it('refuses a deactivated account after checking its password', async () => {
    const { loginSessions, count } = await setup();
    await expect(loginSessions.login('off@pelita.test', 'ada-pw-1234', 'ip')).rejects.toMatchObject(
      {
        status: 403,
        code: 'account_inactive',
      },
    );
    expect(await count('inactive')).toBe(1);
  });

  it('says how long to wait when the limiter refuses, without looking at the password', async () => {
    const { loginSessions, count } = await setup({ waitSeconds: 42 });
    const attempt = loginSessions.login('ada@pelita.test', 'ada-pw-1234', 'ip');
    await expect(attempt).rejects.toBeInstanceOf(TooManyAttemptsError);
    await expect(attempt).rejects.toMatchObject({ status: 429, retryAfterSeconds: 42 });
    expect(await count('rate_limited')).toBe(1);
    expect(await count('success')).toBe(0);
  });

  it('passes a license refusal on and opens no session', async () => {
    const { loginSessions, sessions, count } = await setup({ licenseRefuses: true });
    await expect(loginSessions.login('ada@pelita.test', 'ada-pw-1234', 'ip')).rejects.toMatchObject(
      {
        code: 'license_expired',
      },
    );
    expect(sessions.live.size).toBe(0);
    expect(await count('license_refused')).toBe(1);
  });
});

describe('refresh', () => {
  it('rotates: the new refresh token works, the old one ends the session as a replay', async () => {
    const { loginSessions, sessions, metrics } = await setup();
    const { tokens } = await loginSessions.login('ada@pelita.test', 'ada-pw-1234', 'ip');
    const next = await loginSessions.refresh(tokens.refreshToken);
    expect(next.refreshToken).not.toBe(tokens.refreshToken);
    expect(verifyAccessToken(next.accessToken, publicKey).sub).toBe('u-1');

    await expect(loginSessions.refresh(tokens.refreshToken)).rejects.toMatchObject({
      status: 401,
    });
    expect((await metrics.refreshReuse.get()).values[0]?.value).toBe(1);
    expect(sessions.live.size).toBe(0);
    await expect(loginSessions.refresh(next.refreshToken)).rejects.toMatchObject({ status: 401 });
  });

  it('ends the session of a user deactivated since the login', async () => {
    const { loginSessions, users, sessions, ada } = await setup();
    const { tokens } = await loginSessions.login('ada@pelita.test', 'ada-pw-1234', 'ip');
    users.byId.set(ada.id, { ...ada, isActive: false });
    await expect(loginSessions.refresh(tokens.refreshToken)).rejects.toMatchObject({
      status: 401,
    });
    expect(sessions.live.size).toBe(0);
  });

  it('refuses a token without the session part', async () => {
    const { loginSessions } = await setup();
    await expect(loginSessions.refresh('no-dot')).rejects.toMatchObject({ status: 401 });
  });
});

describe('logout', () => {
  it('ends the session of the access token, once', async () => {
    const { loginSessions, sessions } = await setup();
    const { tokens } = await loginSessions.login('ada@pelita.test', 'ada-pw-1234', 'ip');
    await loginSessions.logout(tokens.accessToken);
    expect(sessions.live.size).toBe(0);
    await expect(loginSessions.logout(tokens.accessToken)).rejects.toMatchObject({
      status: 401,
      message: 'Logout failed: session ended',
    });
  });

  it('refuses a token it did not sign', async () => {
    const { loginSessions } = await setup();
    await expect(loginSessions.logout('not.a.jwt')).rejects.toMatchObject({ status: 401 });
  });
});
