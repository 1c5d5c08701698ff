/**
 * Login limits against a real Redis: an account's failures slow further tries (1 s, 2 s, ...)
 * instead of locking it; one address failing on many accounts is stopped; a success clears the
 * account's failures.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { requireEnv } from '@pelita/testenv';
import { createLoginLimiter } from '../../src/auth/login-limiter';

const { REDIS_URL } = requireEnv('REDIS_URL');

describe('login limits', () => {
  const redis = new Redis(REDIS_URL);
  let clock = 1_000_000;
  const limiter = createLoginLimiter({
    redis,
    maxAttempts: 3,
    maxPerAddress: 5,
    windowSeconds: 900,
    now: () => clock,
  });
  const someone = () => `${randomBytes(4).toString('hex')}@pelita.test`;
  const address = () => `10.${randomBytes(3).join('.')}`;
  afterAll(() => redis.quit());

  it('backs off per account after the allowed failures, from any address, and a success clears it', async () => {
    const email = someone();
    for (let i = 0; i < 3; i += 1) {
      expect(await limiter.attempt(email, address())).toBe(0);
      await limiter.failed(email, address());
    }
    // Three failures: the next try waits 1 s after the last, from whichever address.
    expect(await limiter.attempt(email, address())).toBe(1);
    clock += 1000;
    expect(await limiter.attempt(email, address())).toBe(0);
    await limiter.failed(email, address());
    expect(await limiter.attempt(email, address())).toBe(2);
    clock += 2000;
    expect(await limiter.attempt(email, address())).toBe(0);
    // The owner gets in; the backoff is gone.
    await limiter.succeeded(email);
    expect(await limiter.attempt(email, address())).toBe(0);
  });

  it('stops one address failing on many accounts, and not the others', async () => {
    const ip = address();
    for (let i = 0; i < 5; i += 1) await limiter.failed(someone(), ip);
    expect(await limiter.attempt(someone(), ip)).toBeGreaterThan(0);
    expect(await limiter.attempt(someone(), address())).toBe(0);
  });
});
