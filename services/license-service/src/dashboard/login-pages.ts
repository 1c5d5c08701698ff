/**
 * The login pages: the password form, the second-factor form, TOTP enrolment (QR code, key, first
 * code; then the recovery codes, shown once) and logout. What each step decides is
 * auth/sign-in.ts's; these pages show its outcome and set the cookies.
 */
import type { RouteDefinition } from '@pelita/kit';
import { clearCookie, setCookie, type CookieNames } from '../auth/cookies';
import { newLoginCsrf } from '../auth/csrf';
import type { Enrolment, PasswordStep, SignIn, SignInClient } from '../auth/sign-in';
import { html, trusted } from './html';
import { csrfInput, layout } from './layout';
import { pageRoute, type PageContext, type PageEnvironment } from './page-route';
import { recoveryCodesView } from './recovery-codes-view';

export interface LoginDeps extends PageEnvironment {
  signIn: SignIn;
  cookies: CookieNames;
  secureCookies: boolean;
}

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/** A form's error, announced, and the attribute that ties its field to it. */
const formError = (id: string, error: string | undefined) => ({
  alert: error ? html`<p class="error-text" role="alert" id="${id}">${error}</p>` : '',
  describedBy: error ? html` aria-describedby="${id}"` : '',
});

function loginForm(csrf: string, email: string, error?: string) {
  const { alert, describedBy } = formError('login-error', error);
  return layout({
    title: 'Log in',
    body: html`<form method="post" action="/login" class="card narrow">
      ${csrfInput(csrf)} ${alert}
      <p>
        <label for="email">E-mail</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value="${email}"
          ${describedBy}
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

/** The one-time code of the second-factor and enrolment forms, its error above it. */
function codeField(options: { label: string; maxlength: number; errorId: string; error?: string }) {
  const { alert, describedBy } = formError(options.errorId, options.error);
  return html`${alert}
    <p>
      <label for="code">${options.label}</label>
      <input
        id="code"
        name="code"
        inputmode="numeric"
        autocomplete="one-time-code"
        required
        maxlength="${options.maxlength}"
        ${describedBy}
      />
    </p>`;
}

function codeForm(csrf: string, error?: string) {
  return layout({
    title: 'Second factor',
    body: html`<form method="post" action="/login/totp" class="card narrow">
      ${csrfInput(csrf)}
      <p>Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
      ${codeField({ label: 'Code', maxlength: 20, errorId: 'code-error', error })}
      <p><button type="submit">Verify</button></p>
    </form>`,
  });
}

function enrolForm(csrf: string, enrolment: Enrolment, error?: string) {
  return layout({
    title: 'Set up your second factor',
    body: html`<div class="card narrow">
      <p>
        Scan this QR code with an authenticator app (or enter the key by hand), then type the code
        it shows.
      </p>
      <figure class="qr" role="img" aria-label="QR code of your authenticator key">
        ${trusted(enrolment.qrSvg)}
      </figure>
      <p>Key: <code class="totp-key">${enrolment.secret}</code></p>
      <form method="post" action="/login/enrol">
        ${csrfInput(csrf)}
        ${codeField({ label: 'Code from the app', maxlength: 6, errorId: 'enrol-error', error })}
        <p><button type="submit">Verify and finish</button></p>
      </form>
    </div>`,
  });
}

/** What the login form answers to a refused password step. */
function refusal(step: Exclude<PasswordStep, { ok: true }>): { status: number; message: string } {
  switch (step.reason) {
    case 'throttled':
      return {
        status: 429,
        message: `Too many failed attempts from this address: try again in ${step.retryAfterSeconds} s.`,
      };
    case 'busy':
      return { status: 503, message: 'The dashboard is busy: try again in a moment.' };
    case 'api-only':
      return {
        status: 403,
        message: 'This account can only use the license API; it cannot sign in to the dashboard.',
      };
    case 'refused':
      // One message for every refusal: it must not tell which accounts exist or are locked.
      return {
        status: 401,
        message:
          'Wrong e-mail or password, or the account is locked after too many failed attempts.',
      };
  }
}

const clientOf = (ctx: PageContext): SignInClient => ({
  ip: ctx.actor.ip ?? '',
  userAgent: ctx.req.headers['user-agent'] ?? '',
});

/** What both code steps (second factor, enrolment) take: who, and the code they typed. */
const codeAttempt = (ctx: PageContext) =>
  [ctx.session!, ctx.account!, text(ctx.form.code), clientOf(ctx)] as const;

export function loginRoutes(deps: LoginDeps): RouteDefinition[] {
  const { signIn, cookies, secureCookies } = deps;
  const signedIn = (ctx: PageContext, sessionId: string) =>
    setCookie(ctx.res, cookies.session, sessionId, secureCookies);
  const ended = (ctx: PageContext) => {
    clearCookie(ctx.res, cookies.session, secureCookies);
    return { redirect: '/login?ended=1' };
  };

  /** The login form with a new anti-forgery token: every answer of /login but the success. */
  const freshLoginForm = (ctx: PageContext, email: string, error?: string, status = 200) => {
    const csrf = newLoginCsrf();
    setCookie(ctx.res, cookies.loginCsrf, csrf, secureCookies);
    return { status, html: loginForm(csrf, email, error) };
  };

  return [
    pageRoute(deps, {
      method: 'get',
      path: '/login',
      summary: 'The login form',
      access: 'anonymous',
      handler: (ctx) => {
        const again = ctx.query.ended === '1' ? 'Too many wrong codes: log in again.' : undefined;
        return Promise.resolve(freshLoginForm(ctx, '', again));
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
        const step = await signIn.checkPassword(email, password, ctx.session, clientOf(ctx));
        if (!step.ok) {
          if ('retryAfterSeconds' in step) {
            ctx.res.set('retry-after', String(step.retryAfterSeconds));
          }
          const { status, message } = refusal(step);
          return freshLoginForm(ctx, email, message, status);
        }
        clearCookie(ctx.res, cookies.loginCsrf, secureCookies);
        setCookie(ctx.res, cookies.session, step.sessionId, secureCookies);
        return { redirect: step.next === 'enrol' ? '/login/enrol' : '/login/totp' };
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
        const step = await signIn.checkCode(...codeAttempt(ctx));
        if (step.outcome === 'signed-in') {
          signedIn(ctx, step.sessionId);
          return { redirect: step.recovered ? '/?recovered=1' : '/' };
        }
        if (step.outcome === 'ended') return ended(ctx);
        return { status: 401, html: codeForm(ctx.session!.csrfToken, 'That code is not valid.') };
      },
    }),
    pageRoute(deps, {
      method: 'get',
      path: '/login/enrol',
      summary: 'TOTP enrolment: the QR code of a new key',
      access: 'second-factor',
      handler: (ctx) => {
        const enrolment = signIn.enrolment(ctx.session!, ctx.account!);
        if (!enrolment) return Promise.resolve({ redirect: '/login/totp' });
        return Promise.resolve({ html: enrolForm(ctx.session!.csrfToken, enrolment) });
      },
    }),
    pageRoute(deps, {
      method: 'post',
      path: '/login/enrol',
      summary: 'TOTP enrolment: verifies the first code, shows the recovery codes once',
      access: 'second-factor',
      handler: async (ctx) => {
        const step = await signIn.enrol(...codeAttempt(ctx));
        switch (step.outcome) {
          case 'not-enrolling':
            return { redirect: '/login/totp' };
          case 'restart':
            return { redirect: '/login' };
          case 'ended':
            return ended(ctx);
          case 'wrong':
            return {
              status: 401,
              html: enrolForm(
                ctx.session!.csrfToken,
                signIn.enrolment(ctx.session!, ctx.account!)!,
                'That code is not valid. Check the time on your device and try again.',
              ),
            };
        }
        signedIn(ctx, step.sessionId);
        return {
          html: layout({
            title: 'Your recovery codes',
            body: recoveryCodesView({
              intro:
                'Each code logs you in once if you lose your authenticator. Keep them somewhere safe: they are not shown again.',
              codes: step.recoveryCodes,
              next: { href: '/', label: 'Continue to the dashboard' },
            }),
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
        await signIn.signOut(ctx.session!);
        clearCookie(ctx.res, cookies.session, secureCookies);
        return { redirect: '/login' };
      },
    }),
  ];
}
