/**
 * The signed-in account's own page: change its password (the current one asked first, counted
 * like a login) and make new recovery codes (a current TOTP code asked first; the old codes stop
 * working). A password change ends every other session of the account.
 */
import type { RouteDefinition } from '@pelita/kit';
import type { Pool } from 'pg';
import { recordActivity } from '../activity/activity-log';
import { setCookie, type CookieNames } from '../auth/cookies';
import type { PasswordCheck } from '../auth/password-check';
import { hashRecoveryCode, newRecoveryCodes } from '../auth/recovery-codes';
import type { SessionStore } from '../auth/session-store';
import { acceptedStep } from '../auth/totp';
import { MASKED_VALUE, hashPassword } from '@pelita/kit';
import type { FieldErrors } from '../records/form-input';
import { formView } from './form-view';
import { html } from './html';
import { layout } from './layout';
import { pageRoute, type PageContext, type PageEnvironment } from './page-route';

export interface AccountPageDeps extends PageEnvironment {
  pool: Pool;
  passwords: PasswordCheck;
  sessions: SessionStore;
  cookies: CookieNames;
  secureCookies: boolean;
}

const MIN_PASSWORD = 12;
const text = (value: unknown) => (typeof value === 'string' ? value : '');

export function accountPages(deps: AccountPageDeps): RouteDefinition[] {
  const { pool } = deps;

  function page(
    ctx: PageContext,
    options: {
      flash?: string;
      passwordErrors?: FieldErrors;
      codeErrors?: FieldErrors;
      status?: number;
    },
  ) {
    const account = ctx.account!;
    const body = html`<dl class="card">
        <dt>Name</dt>
        <dd>${account.name}</dd>
        <dt>E-mail</dt>
        <dd>${account.email}</dd>
        <dt>Role</dt>
        <dd>${account.role_name}</dd>
        <dt>Recovery codes left</dt>
        <dd>${account.recovery_code_hashes.length}</dd>
      </dl>
      <h2>Change your password</h2>
      ${formView({
        action: '/account/password',
        csrf: ctx.viewer!.csrfToken,
        fields: [
          { name: 'current_password', label: 'Current password', type: 'password', required: true },
          {
            name: 'new_password',
            label: 'New password',
            type: 'password',
            required: true,
            hint: `At least ${MIN_PASSWORD} characters`,
          },
          {
            name: 'confirm_password',
            label: 'New password again',
            type: 'password',
            required: true,
          },
        ],
        values: {},
        errors: options.passwordErrors ?? {},
        submit: 'Change password',
      })}
      <h2>New recovery codes</h2>
      <p>Replaces your recovery codes: the old ones stop working.</p>
      ${formView({
        action: '/account/recovery-codes',
        csrf: ctx.viewer!.csrfToken,
        fields: [{ name: 'code', label: 'Code from your authenticator app', required: true }],
        values: {},
        errors: options.codeErrors ?? {},
        submit: 'Make new recovery codes',
      })}`;
    return {
      status: options.status ?? 200,
      html: layout({
        title: 'My account',
        viewer: ctx.viewer,
        body,
        flash: options.flash,
        current: '/account',
      }),
    };
  }

  return [
    pageRoute(deps, {
      method: 'get',
      path: '/account',
      summary: "The signed-in account's own page",
      access: 'signed-in',
      handler: (ctx) =>
        Promise.resolve(
          page(ctx, {
            flash: ctx.query.done === 'password' ? 'Your password was changed.' : undefined,
          }),
        ),
    }),
    pageRoute(deps, {
      method: 'post',
      path: '/account/password',
      summary: "Changes the signed-in account's password",
      access: 'signed-in',
      handler: async (ctx) => {
        const account = ctx.account!;
        const next = text(ctx.form.new_password);
        const errors: FieldErrors = {};
        if (next.length < MIN_PASSWORD || next.length > 200)
          errors.new_password = `At least ${MIN_PASSWORD} characters`;
        else if (next !== text(ctx.form.confirm_password))
          errors.confirm_password = 'Does not match the new password';
        if (Object.keys(errors).length === 0) {
          const outcome = await deps.passwords.check({
            email: account.email,
            password: text(ctx.form.current_password).slice(0, 500),
            surface: 'dashboard',
            address: ctx.actor.ip ?? '',
          });
          if (!outcome.ok) errors.current_password = 'Not your current password';
        }
        if (Object.keys(errors).length > 0)
          return page(ctx, { passwordErrors: errors, status: 400 });
        await pool.query(
          'update admin_users set password_hash = $2, updated_at = now() where id = $1',
          [account.id, await hashPassword(next)],
        );
        await recordActivity(pool, ctx.actor, 'admin.password', 'admin', account.id, [
          { field: 'password_hash', before: MASKED_VALUE, after: MASKED_VALUE },
        ]);
        // Every other session of the account ends; this browser continues in a new one.
        await deps.sessions.destroyAllOf(account.id);
        setCookie(
          ctx.res,
          deps.cookies.session,
          await deps.sessions.create(account.id, 'full'),
          deps.secureCookies,
        );
        return { redirect: '/account?done=password' };
      },
    }),
    pageRoute(deps, {
      method: 'post',
      path: '/account/recovery-codes',
      summary: 'Makes new recovery codes for the signed-in account',
      access: 'signed-in',
      handler: async (ctx) => {
        const account = ctx.account!;
        const step = account.totp_secret
          ? acceptedStep(
              account.totp_secret,
              text(ctx.form.code).trim(),
              account.totp_last_step === null ? null : Number(account.totp_last_step),
            )
          : null;
        const codes = newRecoveryCodes();
        const stored =
          step !== null &&
          (
            await pool.query(
              `update admin_users set totp_last_step = $2, recovery_code_hashes = $3
               where id = $1 and (totp_last_step is null or totp_last_step < $2)`,
              [account.id, step, codes.map(hashRecoveryCode)],
            )
          ).rowCount === 1;
        if (!stored) {
          await deps.passwords.recordFailure(account, 'dashboard');
          return page(ctx, { codeErrors: { code: 'That code is not valid.' }, status: 400 });
        }
        await recordActivity(pool, ctx.actor, 'admin.recovery_codes', 'admin', account.id, [
          { field: 'recovery_code_hashes', before: MASKED_VALUE, after: MASKED_VALUE },
        ]);
        return {
          html: layout({
            title: 'Your new recovery codes',
            viewer: ctx.viewer,
            body: html`<div class="card narrow">
              <p>
                Your old recovery codes no longer work. Keep these somewhere safe: they are not
                shown again.
              </p>
              <ul class="codes">
                ${codes.map((c) => html`<li><code>${c}</code></li>`)}
              </ul>
              <p><a class="button" href="/account">Back to my account</a></p>
            </div>`,
          }),
        };
      },
    }),
  ];
}
