/** The activity log, newest first, filtered by record type, record, action and account. */
import type { RouteDefinition } from '@pelita/kit';
import type { Pool } from 'pg';
import { ENTITY_TYPES, searchActivity } from '../activity/activity-log';
import { formatTime, html, queryString } from './html';
import { layout } from './layout';
import { PAGE_SIZE, pageNumber, pagerNav } from './list-view';
import { pageRoute, type PageEnvironment } from './page-route';
import { tableView } from './table-view';

const shownValue = (value: unknown) =>
  value === null || value === undefined
    ? '—'
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);

export function activityPage(env: PageEnvironment & { pool: Pool }): RouteDefinition {
  return pageRoute(env, {
    method: 'get',
    path: '/activity',
    summary: 'The activity log, filterable',
    access: 'activity.read',
    handler: async (ctx) => {
      const page = pageNumber(ctx.query);
      const filters = {
        entity_type: ENTITY_TYPES.includes(ctx.query.entity_type as (typeof ENTITY_TYPES)[number])
          ? ctx.query.entity_type
          : undefined,
        entity_id: ctx.query.entity_id?.slice(0, 100) || undefined,
        actor: ctx.query.actor?.slice(0, 100) || undefined,
      };
      const { rows, total } = await searchActivity(env.pool, {
        entityType: filters.entity_type,
        entityId: filters.entity_id,
        actor: filters.actor,
        page,
        pageSize: PAGE_SIZE * 2,
      });
      const pages = Math.max(1, Math.ceil(total / (PAGE_SIZE * 2)));
      const link = (p: number) => `/activity${queryString({ ...filters, page: p })}`;
      const body = html`<form class="search" method="get" action="/activity" role="search">
          <label for="entity_type">Record type</label>
          <select id="entity_type" name="entity_type">
            <option value="">Any</option>
            ${ENTITY_TYPES.map((t) => html`<option value="${t}" ${filters.entity_type === t ? html` selected` : ''}>${t}</option>`)}
          </select>
          <label for="actor">Account</label>
          <input id="actor" name="actor" value="${filters.actor ?? ''}" />
          ${filters.entity_id ? html`<input type="hidden" name="entity_id" value="${filters.entity_id}" />` : ''}
          <button type="submit">Filter</button>
        </form>
        ${tableView({
          className: 'activity',
          caption: `Activity (${total})`,
          headers: ['When', 'Who', 'Action', 'Record', 'Changes'],
          rows,
          cells: (r) => [
            formatTime(r.at),
            r.actor_email ?? '—',
            html`<code>${r.action}</code>`,
            html`${r.entity_type} <span class="id">${r.entity_id ?? ''}</span>`,
            r.changes.length
              ? html`<ul class="changes">
                  ${r.changes.map((c) => html`<li><strong>${c.field}</strong>: ${shownValue(c.before)} → ${shownValue(c.after)}</li>`)}
                </ul>`
              : '',
          ],
        })}
        ${pagerNav({ label: 'Pages of the activity log', page, pages, link })}`;
      return {
        html: layout({ title: 'Activity', viewer: ctx.viewer, body, current: '/activity' }),
      };
    },
  });
}
