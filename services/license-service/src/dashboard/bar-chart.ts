/**
 * A horizontal bar chart as inline SVG, drawn on the server (no script, so it shows without
 * JavaScript and in screenshots). Colours are presentation attributes: the pages' CSP allows no
 * inline styles. The chart has a title and a text equivalent for screen readers.
 */
import { escapeHtml } from './html';

export function barChartSvg(title: string, bars: Array<{ label: string; value: number }>): string {
  const width = 640;
  const rowHeight = 36;
  const labelWidth = 220;
  const height = Math.max(1, bars.length) * rowHeight + 20;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const scale = (width - labelWidth - 60) / max;
  const rows = bars.map((bar, i) => {
    const y = 10 + i * rowHeight;
    const label = bar.label.length > 28 ? `${bar.label.slice(0, 27)}…` : bar.label;
    return [
      `<text x="${labelWidth - 10}" y="${y + 22}" text-anchor="end" font-size="14" fill="#1f2933">${escapeHtml(label)}</text>`,
      `<rect x="${labelWidth}" y="${y + 6}" width="${Math.max(2, bar.value * scale)}" height="22" fill="#1d5fa8"/>`,
      `<text x="${labelWidth + Math.max(2, bar.value * scale) + 8}" y="${y + 22}" font-size="14" fill="#1f2933">${bar.value}</text>`,
    ].join('');
  });
  const description = bars.map((b) => `${b.label}: ${b.value}`).join('; ') || 'No licenses yet';
  return `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="chart-title chart-desc"><title id="chart-title">${escapeHtml(title)}</title><desc id="chart-desc">${escapeHtml(description)}</desc>${
    bars.length
      ? rows.join('')
      : `<text x="20" y="30" font-size="14" fill="#1f2933">No licenses yet</text>`
  }</svg>`;
}
