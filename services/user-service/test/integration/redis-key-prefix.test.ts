/**
 * REDIS_KEY_PREFIX: two installations sharing one Redis. Every key the user service writes is
 * under its own prefix — sessions (which the kit's guard checks there), refresh rotation (a
 * script that builds keys itself), reset tokens, login limits — so one installation's failed
 * logins never slow the same e-mail address down at the other, and nothing is written outside
 * the prefix.
 */
import { randomBytes } from 'node:crypto';
import { requireEnv } from '@pelita/testenv';
import { Redis } from 'ioredis';
import jwt from 'jsonwebtoken';
import { ADMIN, startPlatform, type Platform } from './support/platform';

const { REDIS_URL } = requireEnv('REDIS_URL');

describe('installations sharing one Redis under their own prefixes', () => {
  const run = randomBytes(4).toString('hex');
  const prefixA = `pelita-a-${run}:`;
  const prefixB = `pelita-b-${run}:`;
  const redis = new Redis(REDIS_URL);
  let a: Platform;
  let b: Platform;

  beforeAll(async () => {
    [a, b] = await Promise.all([
      startPlatform({ REDIS_KEY_PREFIX: prefixA, LOGIN_MAX_ATTEMPTS: '2' }),
      startPlatform({ REDIS_KEY_PREFIX: prefixB, LOGIN_MAX_ATTEMPTS: '2' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    redis.disconnect();
  });

  const keysUnder = async (pattern: string) => (await redis.keys(pattern)).sort();

  it('keeps sessions, refresh rotation and reset tokens under the prefix; the guard finds them there', async () => {
    const pair = await a.login(ADMIN.email, ADMIN.password);
    const { jti } = jwt.decode(pair.access_token) as { jti: string };
    const sid = pair.refresh_token.split('.')[0]!;
    expect(await redis.exists(`${prefixA}session:access:${jti}`)).toBe(1);
    expect(await redis.exists(`${prefixA}session:refresh:${sid}`)).toBe(1);
    expect(await redis.exists(`session:access:${jti}`, `session:refresh:${sid}`)).toBe(0);
    expect((await a.request('GET', '/me', { token: pair.access_token })).status).toBe(200);

    // The rotation script ends the old access session and starts the new one, both prefixed.
    const res = await a.request('POST', '/auth/refresh', {
      body: { refresh_token: pair.refresh_token },
    });
    expect(res.status).toBe(200);
    const rotated = (await res.json()) as { access_token: string };
    const next = (jwt.decode(rotated.access_token) as { jti: string }).jti;
    expect(await redis.exists(`${prefixA}session:access:${jti}`)).toBe(0);
    expect(await redis.exists(`${prefixA}session:access:${next}`)).toBe(1);
    expect(await redis.exists(`session:access:${next}`)).toBe(0);
    expect((await a.request('GET', '/me', { token: pair.access_token })).status).toBe(401);
    expect((await a.request('GET', '/me', { token: rotated.access_token })).status).toBe(200);

    const forgot = await a.request('POST', '/auth/forgot-password', {
      body: { email: ADMIN.email },
    });
    expect(forgot.status).toBe(202);
    // Made in the background.
    for (let i = 0; i < 50 && (await keysUnder(`${prefixA}reset:password:*`)).length < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The token, the account's list of tokens, the account's count of reset e-mails.
    const resetKeys = await keysUnder(`${prefixA}reset:password:*`);
    expect(resetKeys).toHaveLength(3);
    expect(
      resetKeys.filter((key) => key.startsWith(`${prefixA}reset:password:mailed:`)),
    ).toHaveLength(1);
    expect(await keysUnder(`*${sid}*`)).toEqual([`${prefixA}session:refresh:${sid}`]);
  });

  it("does not count one installation's failed logins at the other", async () => {
    for (let i = 0; i < 3; i++) {
      const wrong = await a.request('POST', '/auth/login', {
        body: { email: ADMIN.email, password: 'wrong-password-1' },
      });
      expect([401, 429]).toContain(wrong.status);
    }
    const blocked = await a.request('POST', '/auth/login', {
      body: { email: ADMIN.email, password: ADMIN.password },
    });
    expect(blocked.status).toBe(429);
    // The same address at the other installation, with its own counters.
    await b.login(ADMIN.email, ADMIN.password);
    expect((await keysUnder(`${prefixA}login:failures:account:*`)).length).toBe(1);
    expect(await keysUnder(`${prefixB}login:failures:account:*`)).toEqual([]);
  });
});
