/** A searched, sorted, paged table of records, driven by query parameters (no script). */
import type { ListResult, Row } from '../store/table-repository';
import { formatDate, formatTime, html, queryString, type Html } from './html';

export interface Column {
  key: string;
  label: string;
  sortable?: boolean;
  render?: (row: Row) => Html | string;
}

export const PAGE_SIZE = 10;

export const yesNo = (value: unknown) => (value ? 'Yes' : 'No');

/** Sortable columns of a kind: a flag shown as Yes / No, a date, a time. */
export const flagColumn = (key: string, label: string): Column => ({
  key,
  label,
  sortable: true,
  render: (row) => yesNo(row[key]),
});
export const dateColumn = (key: string, label: string): Column => ({
  key,
  label,
  sortable: true,
  render: (row) => formatDate(row[key]),
});
export const timeColumn = (key: string, label: string): Column => ({
  key,
  label,
  sortable: true,
  render: (row) => formatTime(row[key]),
});

/** The `page` query parameter: 1 when it is missing or not a page number. */
export function pageNumber(query: Record<string, string>): number {
  const page = Number.parseInt(query.page ?? '1', 10);
  return Number.isFinite(page) && page > 0 ? Math.min(page, 100_000) : 1;
}

export function listQuery(query: Record<string, string>) {
  return {
    q: (query.q ?? '').slice(0, 100) || undefined,
    sort: query.sort,
    dir: query.dir === 'desc' ? ('desc' as const) : ('asc' as const),
    page: pageNumber(query),
    pageSize: PAGE_SIZE,
  };
}

/** Previous and next links around "Page n of m". */
export function pagerNav(options: {
  label: string;
  page: number;
  pages: number;
  link: (page: number) => string;
}): Html {
  const { page, pages, link } = options;
  return html`<nav class="pager" aria-label="${options.label}">
    ${page > 1 ? html`<a href="${link(page - 1)}" rel="prev">Previous</a>` : ''}
    <span>Page ${page} of ${pages}</span>
    ${page < pages ? html`<a href="${link(page + 1)}" rel="next">Next</a>` : ''}
  </nav>`;
}

export function listView(options: {
  base: string;
  caption: string;
  columns: Column[];
  result: ListResult;
  q: string | undefined;
  actions?: (row: Row) => Html;
  extraQuery?: Record<string, string>;
}): Html {
  const { base, result, q, columns } = options;
  const pages = Math.max(1, Math.ceil(result.total / result.pageSize));
  const link = (parts: Record<string, string | number | undefined>) =>
    `${base}${queryString({ ...options.extraQuery, q, sort: result.sort, dir: result.dir, ...parts })}`;
  const header = (column: Column) => {
    if (!column.sortable) return html`<th scope="col">${column.label}</th>`;
    const active = result.sort === column.key;
    const next = active && result.dir === 'asc' ? 'desc' : 'asc';
    const sortState = active ? (result.dir === 'asc' ? 'ascending' : 'descending') : 'none';
    return html`<th scope="col" aria-sort="${sortState}">
      <a href="${link({ sort: column.key, dir: next, page: 1 })}"
        >${column.label}${active ? (result.dir === 'asc' ? ' ▲' : ' ▼') : ''}</a
      >
    </th>`;
  };
  const cell = (column: Column, row: Row) =>
    column.render
      ? column.render(row)
      : row[column.key] === null || row[column.key] === undefined
        ? ''
        : String(row[column.key]);
  return html`<form class="search" method="get" action="${base}" role="search">
      ${Object.entries(options.extraQuery ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}
      <label for="q">Search</label> <input id="q" name="q" type="search" value="${q ?? ''}" />
      <button type="submit">Search</button>
    </form>
    <table>
      <caption>
        ${options.caption} (${result.total})
      </caption>
      <thead>
        <tr>
          ${columns.map(header)}${options.actions ? html`<th scope="col">Actions</th>` : ''}
        </tr>
      </thead>
      <tbody>
        ${
          result.rows.length === 0
            ? html`<tr>
                <td colspan="${columns.length + (options.actions ? 1 : 0)}">Nothing found.</td>
              </tr>`
            : result.rows.map(
                (row) =>
                  html`<tr>
                    ${columns.map((c) => html`<td>${cell(c, row)}</td>`)}${options.actions ? html`<td class="actions">${options.actions(row)}</td>` : ''}
                  </tr>`,
              )
        }
      </tbody>
    </table>
    ${pagerNav({
      label: `Pages of ${options.caption}`,
      page: result.page,
      pages,
      link: (page) => link({ page }),
    })}`;
}
