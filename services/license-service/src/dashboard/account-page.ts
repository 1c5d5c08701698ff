/**
 * The signed-in account's own page: change its password (the current one asked first, counted
 * like a login) and make new recovery codes (a current TOTP code asked first; the old codes stop
 * working). A password change ends every other session of the account.
 */
import type { RouteDefinition } from '@pelita/kit';
import { setCookie, type CookieNames } from '../auth/cookies';
import { MIN_PASSWORD, type OwnCredentials } from '../auth/own-credentials';
import type { FieldErrors } from '../records/form-input';
import { formView } from './form-view';
import { html } from './html';
import { layout } from './layout';
import { pageRoute, type PageContext, type PageEnvironment } from './page-route';
import { recoveryCodesView } from './recovery-codes-view';

export interface AccountPageDeps extends PageEnvironment {
  ownCredentials: OwnCredentials;
  cookies: CookieNames;
  secureCookies: boolean;
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

export function accountPages(deps: AccountPageDeps): RouteDefinition[] {
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
        const changed = await deps.ownCredentials.changePassword(ctx.actor, ctx.account!, {
          current: text(ctx.form.current_password),
          next: text(ctx.form.new_password),
          confirm: text(ctx.form.confirm_password),
        });
        if (!changed.ok) return page(ctx, { passwordErrors: changed.errors, status: 400 });
        setCookie(ctx.res, deps.cookies.session, changed.sessionId, deps.secureCookies);
        return { redirect: '/account?done=password' };
      },
    }),
    pageRoute(deps, {
      method: 'post',
      path: '/account/recovery-codes',
      summary: 'Makes new recovery codes for the signed-in account',
      access: 'signed-in',
      handler: async (ctx) => {
        const codes = await deps.ownCredentials.renewRecoveryCodes(
          ctx.actor,
          ctx.account!,
          text(ctx.form.code),
        );
        if (!codes) {
          return page(ctx, { codeErrors: { code: 'That code is not valid.' }, status: 400 });
        }
        return {
          html: layout({
            title: 'Your new recovery codes',
            viewer: ctx.viewer,
            body: recoveryCodesView({
              intro:
                'Your old recovery codes no longer work. Keep these somewhere safe: they are not shown again.',
              codes,
              next: { href: '/account', label: 'Back to my account' },
            }),
          }),
        };
      },
    }),
  ];
}
