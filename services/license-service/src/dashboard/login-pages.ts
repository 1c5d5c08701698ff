/**
 * Login in two steps. The password (first factor) makes a half session that can do nothing but
 * pass the second factor within ten minutes: a TOTP code, or a recovery code; an account without
 * a TOTP secret enrols one first (QR code, first code verified, recovery codes shown once).
 * Each step issues a new session id. A successful login is noted in the activity log and sent
 * as a chat notification; logout ends the session on the server.
 */
import type { Pool } from 'pg';
import { recordActivity } from '../activity/activity-log';
import type { Account } from '../admins/accounts';
import { clearCookie, setCookie, type CookieNames } from '../auth/cookies';
import { newLoginCsrf } from '../auth/csrf';
import type { PasswordCheck } from '../auth/password-check';
import { hashRecoveryCode, consumeRecoveryCode, newRecoveryCodes } from '../auth/recovery-codes';
import type { SessionStore } from '../auth/session-store';
import { acceptedStep, newTotpSecret, totpQrSvg, totpUri } from '../auth/totp';
import type { LoginNotifier } from '../integrations/login-notifier';
import type { LicenseMetrics } from '../metrics';
import type { RouteDefinition } from '@pelita/kit';
import { html, trusted } from './html';
import { csrfInput, layout } from './layout';
import { pageRoute, type PageContext, type PageEnvironment } from './page-route';

export interface LoginDeps extends PageEnvironment {
  pool: Pool;
  passwords: PasswordCheck;
  sessions: SessionStore;
  cookies: CookieNames;
  secureCookies: boolean;
  notifier: LoginNotifier;
  totpIssuer: string;
  totpMaxAttempts: number;
  metrics: LicenseMetrics;
}

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

function loginForm(csrf: string, email: string, error?: string) {
  return layout({
    title: 'Log in',
    body: html`<form method="post" action="/login" class="card narrow">
      ${csrfInput(csrf)}
      ${error ? html`<p class="error-text" role="alert" id="login-error">${error}</p>` : ''}
      <p>
        <label for="email">E-mail</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value="${email}"
          ${error ? html` aria-describedby="login-error"` : ''}
        />
      </p>
      <p>
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
        />
      </p>
      <p><button type="submit">Log in</button></p>
    </form>`,
  });
}

function codeForm(csrf: string, error?: string) {
  return layout({
    title: 'Second factor',
    body: html`<form method="post" action="/login/totp" class="card narrow">
      ${csrfInput(csrf)}
      <p>Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
      ${error ? html`<p class="error-text" role="alert" id="code-error">${error}</p>` : ''}
      <p>
        <label for="code">Code</label>
        <input
          id="code"
          name="code"
          inputmode="numeric"
          autocomplete="one-time-code"
          required
          maxlength="20"
          ${error ? html` aria-describedby="code-error"` : ''}
        />
      </p>
      <p><button type="submit">Verify</button></p>
    </form>`,
  });
}

function enrolForm(csrf: string, secret: string, uri: string, error?: string) {
  return layout({
    title: 'Set up your second factor',
    body: html`<div class="card narrow">
      <p>
        Scan this QR code with an authenticator app (or enter the key by hand), then type the code
        it shows.
      </p>
      <figure class="qr" role="img" aria-label="QR code of your authenticator key">
        ${trusted(totpQrSvg(uri))}
      </figure>
      <p>Key: <code class="totp-key">${secret}</code></p>
      <form method="post" action="/login/enrol">
        ${csrfInput(csrf)}
        ${error ? html`<p class="error-text" role="alert" id="enrol-error">${error}</p>` : ''}
        <p>
          <label for="code">Code from the app</label>
          <input
            id="code"
            name="code"
            inputmode="numeric"
            autocomplete="one-time-code"
            required
            maxlength="6"
            ${error ? html` aria-describedby="enrol-error"` : ''}
          />
        </p>
        <p><button type="submit">Verify and finish</button></p>
      </form>
    </div>`,
  });
}

export function loginRoutes(deps: LoginDeps): RouteDefinition[] {
  const { pool, sessions, cookies, secureCookies } = deps;

  /** Full session: new id, cookie set, login recorded and announced. */
  async function completeLogin(ctx: PageContext, account: Account): Promise<void> {
    deps.metrics.logins.inc({ step: 'second_factor', outcome: 'ok' });
    await sessions.destroy(ctx.session!);
    const id = await sessions.create(account.id, 'full');
    setCookie(ctx.res, cookies.session, id, secureCookies);
    await pool.query('update admin_users set last_login_at = now() where id = $1', [account.id]);
    await recordActivity(
      pool,
      { id: account.id, email: account.email, ip: ctx.actor.ip },
      'admin.login',
      'admin',
      account.id,
      [],
    );
    deps.notifier.notify({
      name: account.name,
      email: account.email,
      ip: ctx.req.socket.remoteAddress ?? '',
      userAgent: ctx.req.headers['user-agent'] ?? '',
      at: new Date(),
    });
  }

  /** A wrong code: counted; past the limit the half session ends and the password is due again. */
  async function wrongCode(ctx: PageContext): Promise<boolean> {
    deps.metrics.logins.inc({ step: 'second_factor', outcome: 'refused' });
    const failures = await sessions.countTotpFailure(ctx.session!);
    await deps.passwords.recordFailure(ctx.account!);
    if (failures < deps.totpMaxAttempts) return false;
    await sessions.destroy(ctx.session!);
    clearCookie(ctx.res, cookies.session, secureCookies);
    return true;
  }

  return [
    pageRoute(deps, {
      method: 'get',
      path: '/login',
      summary: 'The login form',
      access: 'anonymous',
      handler: async (ctx) => {
        const csrf = newLoginCsrf();
        setCookie(ctx.res, cookies.loginCsrf, csrf, secureCookies);
        const again = ctx.query.ended === '1' ? 'Too many wrong codes: log in again.' : undefined;
        return Promise.resolve({ html: loginForm(csrf, '', again) });
      },
    }),
    pageRoute(deps, {
      method: 'post',
      path: '/login',
      summary: 'Checks e-mail and password (first factor)',
      access: 'anonymous',
      handler: async (ctx) => {
        const email = text(ctx.form.email).slice(0, 200);
        const password =
          typeof ctx.form.password === 'string' ? ctx.form.password.slice(0, 500) : '';
        const outcome = await deps.passwords.check(email, password);
        deps.metrics.logins.inc({ step: 'password', outcome: outcome.ok ? 'ok' : 'refused' });
        if (!outcome.ok) {
          // One message for every refusal: it must not tell which accounts exist or are locked.
          const csrf = newLoginCsrf();
          setCookie(ctx.res, cookies.loginCsrf, csrf, secureCookies);
          return {
            status: 401,
            html: loginForm(
              csrf,
              email,
              'Wrong e-mail or password, or the account is locked after too many failed attempts.',
            ),
          };
        }
        if (ctx.session) await sessions.destroy(ctx.session);
        clearCookie(ctx.res, cookies.loginCsrf, secureCookies);
        const { account } = outcome;
        const enrolling = account.totp_secret === null;
        const id = await sessions.create(
          account.id,
          'password',
          enrolling ? newTotpSecret() : null,
        );
        setCookie(ctx.res, cookies.session, id, secureCookies);
        return { redirect: enrolling ? '/login/enrol' : '/login/totp' };
      },
    }),
    pageRoute(deps, {
      method: 'get',
      path: '/login/totp',
      summary: 'The second-factor form',
      access: 'second-factor',
      handler: (ctx) =>
        Promise.resolve(
          ctx.session!.pendingTotpSecret
            ? { redirect: '/login/enrol' }
            : { html: codeForm(ctx.session!.csrfToken) },
        ),
    }),
    pageRoute(deps, {
      method: 'post',
      path: '/login/totp',
      summary: 'Checks a TOTP or recovery code (second factor)',
      access: 'second-factor',
      handler: async (ctx) => {
        const account = ctx.account!;
        const code = text(ctx.form.code);
        if (account.totp_secret && !ctx.session!.pendingTotpSecret) {
          const step = acceptedStep(
            account.totp_secret,
            code,
            account.totp_last_step === null ? null : Number(account.totp_last_step),
          );
          // The step is stored only if still newer: two requests with one code cannot both pass.
          const accepted =
            step !== null &&
            (
              await pool.query(
                `update admin_users set totp_last_step = $2
                 where id = $1 and (totp_last_step is null or totp_last_step < $2)`,
                [account.id, step],
              )
            ).rowCount === 1;
          const remaining = accepted
            ? null
            : consumeRecoveryCode(code, account.recovery_code_hashes);
          const recovered =
            remaining !== null &&
            (
              await pool.query(
                'update admin_users set recovery_code_hashes = $2 where id = $1 and recovery_code_hashes = $3',
                [account.id, remaining, account.recovery_code_hashes],
              )
            ).rowCount === 1;
          if (accepted || recovered) {
            await completeLogin(ctx, account);
            return { redirect: recovered ? '/?recovered=1' : '/' };
          }
        }
        if (await wrongCode(ctx)) return { redirect: '/login?ended=1' };
        return { status: 401, html: codeForm(ctx.session!.csrfToken, 'That code is not valid.') };
      },
    }),
    pageRoute(deps, {
      method: 'get',
      path: '/login/enrol',
      summary: 'TOTP enrolment: the QR code of a new key',
      access: 'second-factor',
      handler: (ctx) => {
        const secret = ctx.session!.pendingTotpSecret;
        if (!secret) return Promise.resolve({ redirect: '/login/totp' });
        const uri = totpUri(secret, deps.totpIssuer, ctx.account!.email);
        return Promise.resolve({ html: enrolForm(ctx.session!.csrfToken, secret, uri) });
      },
    }),
    pageRoute(deps, {
      method: 'post',
      path: '/login/enrol',
      summary: 'TOTP enrolment: verifies the first code, shows the recovery codes once',
      access: 'second-factor',
      handler: async (ctx) => {
        const secret = ctx.session!.pendingTotpSecret;
        const account = ctx.account!;
        if (!secret) return { redirect: '/login/totp' };
        const step = acceptedStep(secret, text(ctx.form.code), null);
        if (step === null) {
          if (await wrongCode(ctx)) return { redirect: '/login?ended=1' };
          const uri = totpUri(secret, deps.totpIssuer, account.email);
          return {
            status: 401,
            html: enrolForm(
              ctx.session!.csrfToken,
              secret,
              uri,
              'That code is not valid. Check the time on your device and try again.',
            ),
          };
        }
        const codes = newRecoveryCodes();
        const enrolled = await pool.query(
          `update admin_users set totp_secret = $2, totp_last_step = $3, recovery_code_hashes = $4
           where id = $1 and totp_secret is null`,
          [account.id, secret, step, codes.map(hashRecoveryCode)],
        );
        if (enrolled.rowCount !== 1) return { redirect: '/login' };
        await completeLogin(ctx, account);
        return {
          html: layout({
            title: 'Your recovery codes',
            body: html`<div class="card narrow">
              <p>
                Each code logs you in once if you lose your authenticator. Keep them somewhere safe:
                they are not shown again.
              </p>
              <ul class="codes">
                ${codes.map((c) => html`<li><code>${c}</code></li>`)}
              </ul>
              <p><a class="button" href="/">Continue to the dashboard</a></p>
            </div>`,
          }),
        };
      },
    }),
    pageRoute(deps, {
      method: 'post',
      path: '/logout',
      summary: 'Ends the session',
      access: 'signed-in',
      handler: async (ctx) => {
        await sessions.destroy(ctx.session!);
        clearCookie(ctx.res, cookies.session, secureCookies);
        return { redirect: '/login' };
      },
    }),
  ];
}
