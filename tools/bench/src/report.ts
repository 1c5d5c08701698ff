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
