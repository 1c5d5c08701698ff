/**
 * What stops guessing at the dashboard's second factor, over plain HTTP against real PostgreSQL:
 * wrong codes count per account until a completed sign-in, so "password, four codes, password
 * again" ends in a lock (announced in the chat), and half sessions opened before the lock end.
 */
import { startTelegramDouble, type TelegramDouble } from '@pelita/vendor-doubles';
import { DashboardClient, totpCode, wrongCode } from './support/dashboard-client';
import { startLicensePlatform, type LicensePlatform } from './support/license-platform';

const BOT_TOKEN = '123456:guard-bot-token';

describe('second-factor guessing', () => {
  let platform: LicensePlatform;
  let telegram: TelegramDouble;

  beforeAll(async () => {
    telegram = await startTelegramDouble({ botToken: BOT_TOKEN });
    platform = await startLicensePlatform({
      TELEGRAM_API_URL: telegram.url,
      TELEGRAM_BOT_TOKEN: BOT_TOKEN,
      TELEGRAM_CHAT_ID: '-42',
    });
  });
  afterAll(async () => {
    await platform?.stop();
    await telegram?.close();
  });

  /** An operator account with its TOTP enrolled; returns its key. */
  async function enrolled(email: string, password: string): Promise<string> {
    await platform.addAccount(email, password, 'operator');
    const owner = new DashboardClient(platform.url);
    await owner.password(email, password);
    return owner.enrol();
  }
  const failures = async (email: string) =>
    (
      await platform.db.query<{ n: number }>(
        'select second_factor_failures as n from admin_users where email = $1',
        [email],
      )
    ).rows[0]!.n;

  it('locks the loop "password, four wrong codes, password again" and announces the lock', async () => {
    const email = 'loop@vendor.test';
    const password = 'loop-password-123';
    const key = await enrolled(email, password);
    const attacker = new DashboardClient(platform.url);
    let guesses = 0;
    let refusedAfter = -1;
    for (let round = 0; round < 6 && refusedAfter < 0; round++) {
      const step = await attacker.password(email, password);
      if (step.status !== 303) {
        expect(step.status).toBe(401);
        refusedAfter = guesses;
        break;
      }
      expect(step.location).toBe('/login/totp');
      for (let i = 0; i < 4; i++) {
        const answer = await attacker.code(wrongCode(key));
        guesses += 1;
        if (answer.status === 303) break; // the half session ended
        expect(answer.status).toBe(401);
      }
    }
    // SECOND_FACTOR_MAX_FAILURES (10): the password alone no longer opens a half session.
    expect(refusedAfter).toBe(10);
    for (let i = 0; i < 50 && telegram.messages.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const locks = telegram.messages.filter((m) => m.text.includes('account locked'));
    expect(locks).toHaveLength(1);
    expect(locks[0]!.text).toContain(email);
    expect(locks[0]!.text).toContain('10 wrong second-factor codes');
  });

  it('ends half sessions opened before the lock, even for the right code', async () => {
    const email = 'parallel@vendor.test';
    const password = 'parallel-password-1';
    const key = await enrolled(email, password);
    const halves = [0, 1, 2, 3].map(() => new DashboardClient(platform.url));
    for (const half of halves) expect((await half.password(email, password)).status).toBe(303);
    // Four wrong codes in each of three halves, never five in one: twelve guesses tried.
    let guesses = 0;
    for (let i = 0; i < 12; i++) {
      const answer = await halves[i % 3]!.code(wrongCode(key));
      if (answer.status === 401) guesses += 1;
    }
    expect(guesses).toBeLessThanOrEqual(10);
    const late = await halves[3]!.code(totpCode(key, 30));
    expect(late.status).toBe(303);
    expect(late.location).toMatch(/^\/login/);
    expect((await halves[3]!.password(email, password)).status).toBe(401);
  });

  it('counts wrong codes until a completed sign-in, which clears them', async () => {
    const email = 'fumble@vendor.test';
    const password = 'fumble-password-12';
    const key = await enrolled(email, password);
    const owner = new DashboardClient(platform.url);
    for (let round = 0; round < 2; round++) {
      await owner.password(email, password);
      for (let i = 0; i < 4; i++) await owner.code(wrongCode(key));
    }
    expect(await failures(email)).toBe(8);
    await owner.password(email, password);
    const signedIn = await owner.code(totpCode(key, 30));
    expect(signedIn.location).toBe('/');
    expect(await failures(email)).toBe(0);
  });
});
