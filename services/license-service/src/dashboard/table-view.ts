/** A plain table (no search, sort or pages): a header cell per label, a row per item. */
import { html, type Html } from './html';

export function tableView<T>(options: {
  className: string;
  caption?: string;
  headers: string[];
  rows: T[];
  cells: (row: T) => Array<Html | string>;
}): Html {
  return html`<table class="${options.className}">
    ${
      options.caption === undefined
        ? ''
        : html`<caption>
            ${options.caption}
          </caption>`
    }
    <thead>
      <tr>
        ${options.headers.map((label) => html`<th scope="col">${label}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${options.rows.map(
        (row) =>
          html`<tr>
            ${options.cells(row).map((cell) => html`<td>${cell}</td>`)}
          </tr>`,
      )}
    </tbody>
  </table>`;
}
