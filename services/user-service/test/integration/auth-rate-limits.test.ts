/**
 * Per-address limits of the unauthenticated auth endpoints a login does not guard (forgot and
 * reset password, register, refresh), through the service behind one trusted proxy, counted in
 * the real Redis: the fourth call of a window from one address is 429 with Retry-After; another
 * address, or another endpoint, has its own count. And the per-account limit of reset e-mails,
 * which no number of addresses gets round.
 */
import { randomBytes } from 'node:crypto';
import { waitFor } from '@pelita/testenv';
import { mailedTokens } from './support/mailbox';
import { ADMIN, startPlatform, type Platform } from './support/platform';

describe('auth endpoint rate limits', () => {
  let platform: Platform;
  // Addresses of this test only (the counters live in the Redis other tests share).
  const address = () => `198.51.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

  beforeAll(async () => {
    platform = await startPlatform({
      TRUST_PROXY: '1',
      AUTH_RATE_LIMIT: '3',
      RESET_MAILS_PER_ACCOUNT: '2',
    });
  });
  afterAll(() => platform?.stop());

  const post = (path: string, from: string, body: unknown) =>
    platform.request('POST', path, { body, headers: { 'x-forwarded-for': from } });

  it('answers 429 with Retry-After past the limit, per address and per endpoint', async () => {
    const one = address();
    for (let i = 0; i < 3; i += 1) {
      expect((await post('/auth/forgot-password', one, { email: 'x@pelita.test' })).status).toBe(
        202,
      );
    }
    const refused = await post('/auth/forgot-password', one, { email: 'x@pelita.test' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: { code: 'too_many_requests' } });

    // Another address, and another endpoint from the same address, count apart.
    expect(
      (await post('/auth/forgot-password', address(), { email: 'x@pelita.test' })).status,
    ).toBe(202);
    for (let i = 0; i < 3; i += 1) {
      expect((await post('/auth/refresh', one, { refresh_token: 'not-a-token' })).status).toBe(401);
    }
    expect((await post('/auth/refresh', one, { refresh_token: 'not-a-token' })).status).toBe(429);
  });

  it('mails one account at most RESET_MAILS_PER_ACCOUNT reset links, from any number of addresses, answering alike', async () => {
    const ghost = await post('/auth/forgot-password', address(), {
      email: `ghost-${randomBytes(3).toString('hex')}@pelita.test`,
    });
    const answers = [];
    for (let i = 0; i < 5; i += 1) {
      answers.push(await post('/auth/forgot-password', address(), { email: ADMIN.email }));
    }
    const expected = { status: ghost.status, body: await ghost.json() };
    for (const res of answers) {
      expect({ status: res.status, body: await res.json() }).toEqual(expected);
    }
    expect(expected.status).toBe(202);
    await waitFor(
      async () => (await mailedTokens(ADMIN.email, '/reset-password')).length >= 2,
      'the first two reset e-mails',
    );
    // The other three were refused in the background: nothing more arrives.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await mailedTokens(ADMIN.email, '/reset-password')).toHaveLength(2);
  });
});
