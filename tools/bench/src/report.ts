/** Prints benchmark lines in one format: name, measured, baseline, ratio. */
export function report(line: string): void {
  process.stdout.write(`${line}\n`);
}

export function table(rows: Array<Record<string, string | number>>): void {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0] ?? {});
  const widths = columns.map((c) =>
    Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length)),
  );
  const format = (cells: string[]) =>
    cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ');
  report(format(columns));
  for (const row of rows) report(format(columns.map((c) => String(row[c] ?? ''))));
}

/** Nearest-rank percentile (p in 0-100); NaN for no values. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

/** One table row of latencies in milliseconds: p50, p99 and max. */
export function timingRow(what: string, values: number[], digits = 2) {
  return {
    path: what,
    'p50 ms': percentile(values, 50).toFixed(digits),
    'p99 ms': percentile(values, 99).toFixed(digits),
    'max ms': Math.max(...values).toFixed(digits),
  };
}
