/**
 * HTML built from tagged templates: every interpolated value is escaped unless it is already
 * `Html` (made by this module), so a client name or a secret value can never become markup.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** A value as text: strings as they are, numbers and booleans printed, anything else as JSON. */
export function plainText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  return JSON.stringify(value) ?? '';
}

function piece(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(piece).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(plainText(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += piece(value) + strings[i + 1]!;
  });
  return new Html(out);
}

/** Markup made elsewhere and trusted (the QR code's and the chart's SVG). */
export const trusted = (markup: string): Html => new Html(markup);

/** A query string from parts, the empty ones left out. */
export function queryString(parts: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(parts)) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

export const formatDate = (value: unknown): string =>
  value instanceof Date
    ? value.toISOString().slice(0, 10)
    : typeof value === 'string'
      ? value.slice(0, 10)
      : '';

export const formatTime = (value: unknown): string =>
  value instanceof Date ? `${value.toISOString().slice(0, 16).replace('T', ' ')} UTC` : '';
