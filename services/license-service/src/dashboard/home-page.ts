/**
 * The home page (seed 001 D): counts of active clients, licenses and mappings, the number of
 * accounts, the 5 most recently activated licenses and a chart of the 5 clients with most licenses.
 */
import type { RouteDefinition } from '@pelita/kit';
import type { Pool } from 'pg';
import { homeFigures } from '../records/home-figures';
import { barChartSvg } from './bar-chart';
import { formatDate, html, trusted } from './html';
import { layout } from './layout';
import { pageRoute, type PageEnvironment } from './page-route';
import { tableView } from './table-view';

export function homePage(env: PageEnvironment & { pool: Pool }): RouteDefinition {
  const { pool } = env;
  return pageRoute(env, {
    method: 'get',
    path: '/',
    summary: 'Home: counts, recent licenses, clients with most licenses',
    access: 'signed-in',
    handler: async (ctx) => {
      const { counts: figures, recent, top } = await homeFigures(pool);
      const counts: Array<[string, number, string]> = [
        ['Active clients', figures.active_clients, 'active-clients'],
        ['Licenses', figures.licenses, 'licenses'],
        ['Mappings', figures.mappings, 'mappings'],
        ['Admin users', figures.admins, 'admins'],
      ];
      const body = html`<section aria-labelledby="counts-title">
          <h2 id="counts-title" class="visually-hidden">Counts</h2>
          <ul class="counts">
            ${counts.map(([label, n, id]) => html`<li class="count" data-count="${id}"><span class="number">${n}</span> <span>${label}</span></li>`)}
          </ul>
        </section>
        <div class="columns">
          <section class="card" aria-labelledby="recent-title">
            <h2 id="recent-title">Recently activated licenses</h2>
            ${
              recent.length
                ? tableView({
                    className: 'recent',
                    headers: ['License', 'Client', 'Activated'],
                    rows: recent,
                    cells: (r) => [
                      r.license_name,
                      html`<a href="/clients/${r.client_id}">${r.client_name}</a>`,
                      formatDate(r.activated_date),
                    ],
                  })
                : html`<p>No license has been activated yet.</p>`
            }
          </section>
          <section class="card" aria-labelledby="top-title">
            <h2 id="top-title">Clients with most licenses</h2>
            ${trusted(
              barChartSvg(
                'Clients with most licenses',
                top.map((r) => ({ label: r.name, value: r.n })),
              ),
            )}
          </section>
        </div>`;
      const flash = ctx.query.recovered
        ? 'You logged in with a recovery code; it cannot be used again.'
        : undefined;
      return { html: layout({ title: 'Home', viewer: ctx.viewer, body, flash, current: '/' }) };
    },
  });
}
