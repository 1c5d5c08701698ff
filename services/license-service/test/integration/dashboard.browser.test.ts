/**
 * The admin dashboard in a real browser (Debian's Chromium through playwright-core), against
 * real PostgreSQL and the doubles of Infisical, GitLab and Telegram: TOTP enrolment and login,
 * records created through the forms, home counts and chart, the environment page writing to the
 * secret store and a frontend mapping triggering one pipeline per save with one reused trigger
 * token, the login notification, CSRF refusal, session expiry, the activity log. Every page is
 * screenshotted and checked with axe-core.
 */
import {
  startGitlabDouble,
  startInfisicalDouble,
  startTelegramDouble,
  type GitlabDouble,
  type InfisicalDouble,
  type TelegramDouble,
} from '@pelita/vendor-doubles';
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { launchChromium, screenshot, seriousViolations } from '@pelita/testenv';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN, startLicensePlatform, type LicensePlatform } from './support/license-platform';

const SCOPE = { projectId: 'proj-acme', environment: 'prod', secretPath: '/web' };
const IDENTITY = { clientId: 'acme-machine', clientSecret: 'acme-machine-secret-value' };
const GITLAB_TOKEN = 'glpat-test-token';
const BOT_TOKEN = '123456:bot-token-for-tests';
const NEW_PASSWORD = 'a-new-root-password-34';

describe('license dashboard in the browser', () => {
  let platform: LicensePlatform;
  let infisical: InfisicalDouble;
  let gitlab: GitlabDouble;
  let telegram: TelegramDouble;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let totpKey = '';
  let recoveryCodes: string[] = [];
  let clientId = '';
  let mappingId = '';
  const screenshots: string[] = [];

  beforeAll(async () => {
    [infisical, gitlab, telegram] = await Promise.all([
      startInfisicalDouble(),
      startGitlabDouble({ privateToken: GITLAB_TOKEN }),
      startTelegramDouble({ botToken: BOT_TOKEN }),
    ]);
    infisical.addIdentity(IDENTITY.clientId, IDENTITY.clientSecret);
    infisical.setSecret(SCOPE, 'API_URL', 'https://api.acme.test');
    infisical.setSecret(SCOPE, 'FEATURE_FLAGS', 'chat,ocr');
    infisical.setSecret(SCOPE, 'SESSION_KEY', 'very-secret-session-key-1');
    platform = await startLicensePlatform({
      MAPPINGS_INFISICAL_URL: infisical.url,
      GITLAB_URL: gitlab.url,
      GITLAB_TOKEN,
      GITLAB_PROJECT_ID: '42',
      TELEGRAM_API_URL: telegram.url,
      TELEGRAM_BOT_TOKEN: BOT_TOKEN,
      TELEGRAM_CHAT_ID: '-1001',
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    });
    browser = await launchChromium();
    context = await browser.newContext({ userAgent: 'PelitaDashboardTest/1.0 Chromium' });
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    await Promise.all([infisical?.close(), gitlab?.close(), telegram?.close()]);
  });

  const url = (path: string) => `${platform.url}${path}`;
  /** Screenshot and accessibility check of the page as it is now. */
  async function check(name: string): Promise<void> {
    screenshots.push(await screenshot(page, 'license-service', name));
    expect(await seriousViolations(page)).toEqual([]);
  }
  const code = (key: string, offsetSeconds = 0) =>
    new TOTP({ secret: Secret.fromBase32(key), digits: 6, period: 30, algorithm: 'SHA1' }).generate(
      {
        timestamp: Date.now() + offsetSeconds * 1000,
      },
    );
  /**
   * A code for a later login. A code is taken once, and only within one step of now, so a real
   * client waits up to 30 s for the next step; here the step accepted last is moved back two
   * steps instead, as if that time had passed (what the account holds is all the replay check
   * compares, and `logs in again` proves a used code is refused). Three logins waited 15-60 s
   * in all before.
   */
  async function freshCode(): Promise<string> {
    await platform.db.query(
      'update admin_users set totp_last_step = totp_last_step - 2 where email = $1',
      [ADMIN.email],
    );
    return code(totpKey);
  }
  const sessionCookie = async () =>
    (await context.cookies()).find((c) => c.name === '__Host-pelita_license_session')?.value;
  const count = async (name: string) =>
    Number(await page.locator(`[data-count="${name}"] .number`).textContent());

  it('sends a visitor to the login page', async () => {
    await page.goto(url('/clients'));
    expect(new URL(page.url()).pathname).toBe('/login');
    await check('login');
  });

  it('refuses a wrong password with one message that names nothing', async () => {
    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain(
      'Wrong e-mail or password',
    );
    await check('login-refused');
  });

  it('enrols TOTP at the first login: QR code, key, first code, recovery codes', async () => {
    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    expect(new URL(page.url()).pathname).toBe('/login/enrol');
    const halfSession = await sessionCookie();
    expect(halfSession).toBeDefined();
    expect(await page.locator('figure.qr svg').count()).toBe(1);
    totpKey = (await page.locator('.totp-key').textContent()) ?? '';
    expect(totpKey).toMatch(/^[A-Z2-7]{32}$/);
    await check('totp-enrol');

    await page.getByLabel('Code from the app').fill('000000');
    await page.getByRole('button', { name: 'Verify and finish' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('not valid');

    await page.getByLabel('Code from the app').fill(code(totpKey));
    await page.getByRole('button', { name: 'Verify and finish' }).click();
    recoveryCodes = await page.locator('.codes code').allTextContents();
    expect(recoveryCodes).toHaveLength(10);
    await check('recovery-codes');
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === '__Host-pelita_license_session');
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict', path: '/' });
    // A new session id at each step: the half-logged-in id never becomes the logged-in one.
    expect(session!.value).not.toBe(halfSession);
    await page.getByRole('link', { name: 'Continue to the dashboard' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Home');
  });

  it('announced the login to the chat with name, e-mail, IP, UTC+7 time and user agent', async () => {
    // Sent after the login answered: it never delays a login.
    for (let i = 0; i < 50 && telegram.messages.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(telegram.messages).toHaveLength(1);
    const [message] = telegram.messages;
    expect(message!.chatId).toBe('-1001');
    for (const part of [
      ADMIN.name,
      ADMIN.email,
      '127.0.0.1',
      '(UTC+7)',
      'PelitaDashboardTest/1.0',
    ]) {
      expect(message!.text).toContain(part);
    }
  });

  it('shows the home page with zero counts and an empty chart', async () => {
    expect(await count('active-clients')).toBe(0);
    expect(await count('licenses')).toBe(0);
    expect(await count('mappings')).toBe(0);
    expect(await count('admins')).toBe(1);
    await check('home-empty');
  });

  it('creates a client through the form, with validation messages next to the fields', async () => {
    await page.goto(url('/clients/new'));
    await page.getByLabel('E-mail').fill('not-an-email');
    await page.getByRole('button', { name: 'Create client' }).click();
    expect(await page.locator('#f-name-error').textContent()).toBe('Required');
    expect(await page.locator('#f-email-error').textContent()).toBe('Not an e-mail address');
    expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-describedby')).toBe(
      'f-name-error',
    );
    await check('client-form-errors');

    await page.getByLabel('Name', { exact: true }).fill('Acme Corp');
    await page.getByLabel('Company name').fill('PT Acme Indonesia');
    await page.getByLabel('E-mail').fill('ops@acme.test');
    await page.getByLabel('Maximum users').fill('25');
    await page.getByRole('button', { name: 'Create client' }).click();
    expect(new URL(page.url()).pathname).toBe('/clients');
    await expect(page.locator('.flash').textContent()).resolves.toBe('Client created.');
    await check('clients');
    await page.getByRole('link', { name: 'Acme Corp', exact: true }).click();
    clientId = new URL(page.url()).pathname.split('/')[2]!;
    await check('client-detail');
  });

  it('adds licenses to the client, and a second client for the chart', async () => {
    for (const [name, activated] of [
      ['Platform', '2026-01-05'],
      ['OCR add-on', '2026-03-10'],
    ] as const) {
      await page.goto(url(`/clients/${clientId}/licenses/new`));
      await page.getByLabel('License name').fill(name);
      await page.getByLabel('Serial number').fill(`SN-${name.length}`);
      await page.getByLabel('Activated on').fill(activated);
      await page.getByLabel('Expires on').fill('2030-12-31');
      await page.getByRole('button', { name: 'Create license' }).click();
    }
    await check('licenses');
    expect(await page.locator('tbody tr').count()).toBe(2);

    await page.goto(url('/clients/new'));
    await page.getByLabel('Name', { exact: true }).fill('Beta Ltd');
    await page.getByRole('button', { name: 'Create client' }).click();
    const beta = await platform.db.query<{ id: string }>(
      `select id from clients where name = 'Beta Ltd'`,
    );
    await page.goto(url(`/clients/${beta.rows[0]!.id}/licenses/new`));
    await page.getByLabel('License name').fill('Beta platform');
    await page.getByLabel('Activated on').fill('2026-05-01');
    await page.getByRole('button', { name: 'Create license' }).click();
    await page.goto(url(`/clients/${beta.rows[0]!.id}/licenses/new`));
    await page.getByLabel('License name').fill('Bad dates');
    await page.getByLabel('Activated on').fill('2026-05-01');
    await page.getByLabel('Expires on').fill('2026-04-01');
    await page.getByRole('button', { name: 'Create license' }).click();
    expect(await page.locator('#f-expired_date-error').textContent()).toBe(
      'Must not be before the activation date',
    );
    await check('license-form-errors');
  });

  it('adds a frontend mapping (its client secret never shown back)', async () => {
    await page.goto(url(`/clients/${clientId}/mappings/new`));
    await page.getByLabel('Type').selectOption('frontend');
    await page.getByLabel('Infisical project ID').fill(SCOPE.projectId);
    await page.getByLabel('Environment slug').fill(SCOPE.environment);
    await page.getByLabel('Secret path').fill(SCOPE.secretPath);
    await page.getByLabel('Machine identity client ID').fill(IDENTITY.clientId);
    await page.getByLabel('Machine identity client secret').fill(IDENTITY.clientSecret);
    await page.getByRole('button', { name: 'Create mapping' }).click();
    expect(await page.locator('#f-branch_source-error').textContent()).toContain(
      'Required for a frontend mapping',
    );
    await page.getByLabel('Machine identity client secret').fill(IDENTITY.clientSecret);
    await page.getByLabel('Branch (frontend)').fill('release/acme');
    await page.getByRole('button', { name: 'Create mapping' }).click();
    expect(new URL(page.url()).pathname).toBe(`/clients/${clientId}/mappings`);
    await check('mappings');
    const edit = page.getByRole('link', { name: /^Edit/ });
    await edit.click();
    mappingId = new URL(page.url()).pathname.split('/')[2]!;
    expect(await page.content()).not.toContain(IDENTITY.clientSecret);
    // Sealed in the database (ENCRYPTION_KEY): a dump shows no credential.
    const stored = await platform.db.query<{ client_secret: string }>(
      'select client_secret from secret_mappings',
    );
    expect(stored.rows[0]!.client_secret).toMatch(/^enc:v1:/);
    await check('mapping-edit');
  });

  it('shows the new counts, the recent licenses and the chart on the home page', async () => {
    await page.goto(url('/'));
    expect(await count('active-clients')).toBe(2);
    expect(await count('licenses')).toBe(3);
    expect(await count('mappings')).toBe(1);
    const recent = await page.locator('table.recent tbody tr td:first-child').allTextContents();
    expect(recent).toEqual(['Beta platform', 'OCR add-on', 'Platform']);
    const bars = await page.locator('svg.chart text[text-anchor="end"]').allTextContents();
    expect(bars).toEqual(['Acme Corp', 'Beta Ltd']);
    expect(await page.locator('svg.chart rect').count()).toBe(2);
    await check('home');
  });

  it('reads the secrets on the environment page and writes edits to the secret store', async () => {
    await page.goto(url(`/infisical-env?id=${mappingId}`));
    expect(await page.getByLabel('API_URL').inputValue()).toBe('https://api.acme.test');
    expect(await page.getByLabel('SESSION_KEY').inputValue()).toBe('very-secret-session-key-1');
    await check('environment');
    await page.getByLabel('API_URL').fill('https://api2.acme.test');
    await page.getByLabel('SESSION_KEY').fill('rotated-session-key-2');
    await page.getByRole('button', { name: 'Save secrets' }).click();
    await expect(page.locator('.flash').textContent()).resolves.toMatch(
      /^Saved 2 secrets\. Pipeline \d+ started on release\/acme\./,
    );
    expect(infisical.secretValue(SCOPE, 'API_URL')).toBe('https://api2.acme.test');
    expect(infisical.secretValue(SCOPE, 'SESSION_KEY')).toBe('rotated-session-key-2');
    expect(infisical.secretValue(SCOPE, 'FEATURE_FLAGS')).toBe('chat,ocr');
    const patches = infisical.requests.filter((r) => r.method === 'PATCH');
    expect(patches.map((r) => r.path)).toEqual([
      '/api/v4/secrets/API_URL',
      '/api/v4/secrets/SESSION_KEY',
    ]);
    await check('environment-saved');
  });

  it('runs one pipeline per save of a frontend mapping, reusing one trigger token', async () => {
    expect(gitlab.triggers).toHaveLength(1);
    expect(gitlab.pipelines).toHaveLength(1);
    expect(gitlab.pipelines[0]).toMatchObject({ projectId: '42', ref: 'release/acme' });
    await page.getByLabel('FEATURE_FLAGS').fill('chat,ocr,summary');
    await page.getByRole('button', { name: 'Save secrets' }).click();
    expect(gitlab.triggers).toHaveLength(1);
    expect(gitlab.pipelines).toHaveLength(2);
    expect(gitlab.pipelines[1]!.token).toBe(gitlab.triggers[0]!.token);
    const stored = await platform.db.query<{ trigger_token: string }>(
      'select trigger_token from secret_mappings',
    );
    expect(stored.rows[0]!.trigger_token).toMatch(/^enc:v1:/);
    expect(stored.rows[0]!.trigger_token).not.toContain(gitlab.triggers[0]!.token);
  });

  it('answers a failing secret store with an error page, not a crash', async () => {
    infisical.failNext(503, 1, '/api/v4/secrets');
    const res = await page.goto(url(`/infisical-env?id=${mappingId}`));
    expect(res?.status()).toBe(502);
    await expect(page.locator('h1').textContent()).resolves.toBe('Something failed');
    await check('error-secret-store');
  });

  it('refuses a form whose anti-forgery token is wrong, and a cross-site form gets no session', async () => {
    await page.goto(url('/clients/new'));
    await page.locator('main input[name="_csrf"]').evaluate((input) => {
      (input as unknown as { value: string }).value = 'forged-token';
    }, undefined);
    await page.getByLabel('Name', { exact: true }).fill('Forged Client');
    await page.locator('main').getByRole('button', { name: 'Create client' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Not allowed');
    expect(await page.locator('main').textContent()).toContain('did not come from this dashboard');
    await check('csrf-refused');

    // Another site's page posting to the dashboard: SameSite=Strict keeps the cookie home.
    const attacker = await context.newPage();
    await attacker.setContent(
      `<form method="post" action="${url('/clients')}"><input name="name" value="Cross Site"><button>Go</button></form>`,
    );
    await attacker.getByRole('button', { name: 'Go' }).click();
    await attacker.waitForLoadState();
    expect(new URL(attacker.url()).pathname).toBe('/login');
    await attacker.close();
    const forged = await platform.db.query(
      `select 1 from clients where name in ('Forged Client', 'Cross Site')`,
    );
    expect(forged.rowCount).toBe(0);
  });

  it('shows every change in the activity log with before and after, secrets masked', async () => {
    await page.goto(url('/activity'));
    const actions = await page.locator('table.activity td:nth-child(3)').allTextContents();
    for (const action of [
      'client.create',
      'license.create',
      'mapping.create',
      'secrets.save',
      'pipeline.trigger',
      'admin.login',
    ]) {
      expect(actions).toContain(action);
    }
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain('API_URL: [hidden] → [hidden]');
    expect(text).toContain('client_secret: — → [hidden]');
    for (const secret of [
      'rotated-session-key-2',
      'https://api2.acme.test',
      IDENTITY.clientSecret,
    ]) {
      expect(text).not.toContain(secret);
    }
    await check('activity');

    await page.getByLabel('Record type').selectOption('license');
    await page.getByRole('button', { name: 'Filter' }).click();
    const filtered = await page.locator('table.activity td:nth-child(3)').allTextContents();
    expect(new Set(filtered)).toEqual(new Set(['license.create']));

    // An edit records only what changed.
    await page.goto(url(`/clients/${clientId}/edit`));
    await page.getByLabel('Maximum users').fill('30');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.goto(url(`/activity?entity_id=${clientId}`));
    await expect(page.locator('table.activity tbody tr').first().textContent()).resolves.toContain(
      'max_user: 25 → 30',
    );
  });

  it('shows the edit and new forms of every record type', async () => {
    const ids = async (sql: string) => (await platform.db.query<{ id: string }>(sql)).rows[0]!.id;
    const pages: Array<[string, string]> = [
      [`/clients/${clientId}/edit`, 'client-edit'],
      [`/licenses/${await ids('select id from licenses limit 1')}/edit`, 'license-edit'],
      [`/clients/${clientId}/licenses/new`, 'license-new'],
      [`/clients/${clientId}/mappings/new`, 'mapping-new'],
      ['/clients/new', 'client-new'],
      [`/admins/${await ids('select id from admin_users limit 1')}/edit`, 'account-edit'],
      ['/roles/new', 'role-new'],
      [`/roles/${await ids("select id from roles where name = 'operator'")}/edit`, 'role-edit'],
    ];
    for (const [path, name] of pages) {
      const res = await page.goto(url(path));
      expect(res?.status()).toBe(200);
      await check(name);
    }
    const missing = await page.goto(url('/clients/00000000-0000-4000-8000-000000000000'));
    expect(missing?.status()).toBe(404);
    await check('error-not-found');
  });

  it('lists, sorts, searches and pages the clients', async () => {
    for (let i = 0; i < 11; i++)
      await platform.addClient({ name: `Zeta ${String(i).padStart(2, '0')}` }, []);
    await page.goto(url('/clients?sort=name&dir=desc'));
    expect(await page.locator('tbody tr td:first-child').first().textContent()).toBe('Zeta 10');
    await page.getByRole('link', { name: 'Next' }).click();
    expect(await page.locator('.pager span').textContent()).toBe('Page 2 of 2');
    await page.goto(url('/clients'));
    await page.getByLabel('Search').fill('acme');
    await page.getByRole('button', { name: 'Search' }).click();
    expect(await page.locator('tbody tr td:first-child').allTextContents()).toEqual(['Acme Corp']);
  });

  it('manages accounts and roles; a viewer account cannot reach the write pages', async () => {
    await page.goto(url('/roles'));
    await check('roles');
    await page.getByRole('link', { name: 'New role' }).click();
    await page.getByLabel('Name', { exact: true }).fill('auditor');
    await page.getByLabel(/Read the activity log/).check();
    await page.getByRole('button', { name: 'Create role' }).click();
    await check('roles-created');
    await page.goto(url('/admins/new'));
    await check('account-form');
    await page.getByLabel('Name', { exact: true }).fill('Vera Viewer');
    await page.getByLabel('E-mail').fill('vera@vendor.test');
    await page.getByLabel('Role').selectOption({ label: 'viewer' });
    await page.getByLabel('Password').fill('vera-password-12');
    await page.getByLabel('Active').check();
    await page.getByRole('button', { name: 'Create account' }).click();
    await check('accounts');
    expect(await page.locator('tbody').textContent()).toContain('vera@vendor.test');

    // No self-lock-out: one's own account stays active and keeps account management.
    const own = await platform.db.query<{ id: string }>(
      'select id from admin_users where email = $1',
      [ADMIN.email],
    );
    await page.goto(url(`/admins/${own.rows[0]!.id}/edit`));
    await page.getByLabel('Active').uncheck();
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(await page.locator('#f-is_active-error').textContent()).toBe(
      'You cannot deactivate your own account.',
    );
    await page.getByLabel('Active').check();
    await page.getByLabel('Role').selectOption({ label: 'viewer' });
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(await page.locator('#f-role_id-error').textContent()).toContain('keep the permission');

    const other = await browser.newContext();
    const vera = await other.newPage();
    await vera.goto(url('/login'));
    await vera.getByLabel('E-mail').fill('vera@vendor.test');
    await vera.getByLabel('Password').fill('vera-password-12');
    await vera.getByRole('button', { name: 'Log in' }).click();
    const key = (await vera.locator('.totp-key').textContent()) ?? '';
    await vera.getByLabel('Code from the app').fill(code(key));
    await vera.getByRole('button', { name: 'Verify and finish' }).click();
    await vera.goto(url('/clients'));
    expect(await vera.getByRole('link', { name: 'New client' }).count()).toBe(0);
    const refused = await vera.goto(url('/clients/new'));
    expect(refused?.status()).toBe(403);
    expect((await vera.goto(url('/admins')))?.status()).toBe(403);
    await other.close();
  });

  it('logs in again with a TOTP code (a used code refused) and with a recovery code once', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    expect(new URL(page.url()).pathname).toBe('/login');
    expect((await page.goto(url('/')))?.url()).toContain('/login');

    const passwordStep = async () => {
      await page.getByLabel('E-mail').fill(ADMIN.email);
      await page.getByLabel('Password').fill(ADMIN.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      expect(new URL(page.url()).pathname).toBe('/login/totp');
    };
    await passwordStep();
    await check('totp-login');
    const lastStep = await platform.db.query<{ step: string }>(
      `select totp_last_step::text as step from admin_users where email = $1`,
      [ADMIN.email],
    );
    // The code of the step enrolment used cannot be used again.
    const usedCode = new TOTP({ secret: Secret.fromBase32(totpKey) }).generate({
      timestamp: Number(lastStep.rows[0]!.step) * 30_000,
    });
    await page.getByLabel('Code').fill(usedCode);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('That code is not valid.');
    await page.getByLabel('Code').fill(code(totpKey, 30));
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Home');

    await page.getByRole('button', { name: 'Log out' }).click();
    await passwordStep();
    await page.getByLabel('Code').fill(recoveryCodes[0]!.toLowerCase());
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.locator('.flash').textContent()).resolves.toContain('recovery code');
    await page.getByRole('button', { name: 'Log out' }).click();
    await passwordStep();
    await page.getByLabel('Code').fill(recoveryCodes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('That code is not valid.');
  });

  it('ends the login after too many wrong codes', async () => {
    for (let i = 0; i < 5; i++) {
      if (new URL(page.url()).pathname !== '/login/totp') break;
      await page.getByLabel('Code').fill('111111');
      await page.getByRole('button', { name: 'Verify' }).click();
    }
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await page.getByRole('alert').textContent()).toContain('Too many wrong codes');
    // The wrong codes count towards the account's lock; a good login clears it.
    await platform.db.query('update admin_users set failed_attempts = 0, locked_until = null');
  });

  it('logs in even when the chat notification fails, and ends idle sessions', async () => {
    telegram.failNext(500, 1);
    const before = telegram.requests.length;
    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByLabel('Code').fill(await freshCode());
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Home');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(telegram.requests.length).toBe(before + 1);

    await platform.db.query(`update sessions set last_seen_at = now() - interval '31 minutes'`);
    await page.goto(url('/clients'));
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it('counted logins, notifications and pipelines on /metrics', async () => {
    const text = await (await fetch(url('/metrics'))).text();
    const value = (series: string) =>
      Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    expect(value('license_dashboard_logins_total{step="password",outcome="refused"}')).toBe(1);
    expect(value('license_dashboard_logins_total{step="second_factor",outcome="ok"}')).toBe(5);
    expect(value('license_pipeline_triggers_total{outcome="triggered"}')).toBe(2);
    expect(value('license_login_notifications_total{outcome="failed"}')).toBe(1);
    expect(value('license_login_notifications_total{outcome="sent"}')).toBe(4);
  });

  it('changes its own password and makes new recovery codes on the account page', async () => {
    await page.goto(url('/login'));
    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByLabel('Code').fill(await freshCode());
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('link', { name: 'My account' }).click();
    await check('account');

    await page.getByLabel('Current password').fill('not-my-password');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    expect(await page.locator('#f-current_password-error').textContent()).toBe(
      'Not your current password',
    );
    await page.getByLabel('Current password').fill(ADMIN.password);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect(page.locator('.flash').textContent()).resolves.toBe('Your password was changed.');
    await platform.db.query('update admin_users set failed_attempts = 0');

    const before = await platform.db.query<{ codes: string[] }>(
      'select recovery_code_hashes as codes from admin_users where email = $1',
      [ADMIN.email],
    );
    await page.getByLabel('Code from your authenticator app').fill(await freshCode());
    await page.getByRole('button', { name: 'Make new recovery codes' }).click();
    const fresh = await page.locator('.codes code').allTextContents();
    expect(fresh).toHaveLength(10);
    await check('account-recovery-codes');
    const after = await platform.db.query<{ codes: string[] }>(
      'select recovery_code_hashes as codes from admin_users where email = $1',
      [ADMIN.email],
    );
    expect(after.rows[0]!.codes.some((hash) => before.rows[0]!.codes.includes(hash))).toBe(false);

    // The old password no longer opens the API; the new one does.
    const id = await platform.addClient();
    const api = (password: string) =>
      fetch(url(`/api/licenses/${id}`), {
        headers: {
          authorization: `Basic ${Buffer.from(`${ADMIN.email}:${password}`).toString('base64')}`,
        },
      });
    expect((await api(ADMIN.password)).status).toBe(401);
    expect((await api(NEW_PASSWORD)).status).toBe(200);
  });

  it('kept secrets and passwords out of the logs', () => {
    const logs = platform.logs.lines.join('\n');
    for (const secret of [
      ADMIN.password,
      IDENTITY.clientSecret,
      'rotated-session-key-2',
      BOT_TOKEN,
      GITLAB_TOKEN,
      totpKey,
    ]) {
      expect(logs).not.toContain(secret);
    }
    expect(screenshots.length).toBeGreaterThanOrEqual(33);
  });
});
