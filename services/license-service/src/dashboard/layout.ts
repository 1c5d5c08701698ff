/** The dashboard's page frame: head, navigation by permission, the logout form, flash message. */
import type { Permission } from '../admins/permissions';
import { CSRF_FIELD } from '../auth/csrf';
import { html, type Html } from './html';

export interface Viewer {
  name: string;
  email: string;
  permissions: Permission[];
  csrfToken: string;
}

const NAV: Array<{ href: string; label: string; permission?: Permission }> = [
  { href: '/', label: 'Home' },
  { href: '/clients', label: 'Clients', permission: 'clients.read' },
  { href: '/admins', label: 'Accounts', permission: 'admins.manage' },
  { href: '/roles', label: 'Roles', permission: 'admins.manage' },
  { href: '/activity', label: 'Activity', permission: 'activity.read' },
  { href: '/account', label: 'My account' },
];

export const csrfInput = (token: string): Html =>
  html`<input type="hidden" name="${CSRF_FIELD}" value="${token}" />`;

export function layout(options: {
  title: string;
  viewer?: Viewer | undefined;
  body: Html;
  flash?: string | undefined;
  current?: string;
}): Html {
  const { viewer } = options;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${options.title} · Pelita license dashboard</title>
        <link rel="stylesheet" href="/assets/dashboard.css" />
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/">Pelita licenses</a>
          ${
            viewer
              ? html`<nav aria-label="Main">
                    <ul>
                      ${NAV.filter(
                        (item) => !item.permission || viewer.permissions.includes(item.permission),
                      ).map(
                        (item) =>
                          html`<li>
                            <a
                              href="${item.href}"
                              ${options.current === item.href ? html` aria-current="page"` : ''}
                              >${item.label}</a
                            >
                          </li>`,
                      )}
                    </ul>
                  </nav>
                  <form class="logout" method="post" action="/logout">
                    ${csrfInput(viewer.csrfToken)}<span>${viewer.name}</span>
                    <button type="submit">Log out</button>
                  </form>`
              : ''
          }
        </header>
        <main id="main">
          <h1>${options.title}</h1>
          ${options.flash ? html`<p class="flash" role="status">${options.flash}</p>` : ''}
          ${options.body}
        </main>
      </body>
    </html>`;
}
