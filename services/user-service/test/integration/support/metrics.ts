/** Reads one sample from a Prometheus text exposition (what `/metrics` answers). */
export function sampleValue(
  exposition: string,
  name: string,
  labels: Record<string, string> = {},
): number {
  const wanted = Object.entries(labels);
  for (const line of exposition.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    if (
      Object.keys(present).length === wanted.length &&
      wanted.every(([key, value]) => present[key] === value)
    ) {
      return Number(match[3]);
    }
  }
  // A labelled counter has no line until its first increment.
  return 0;
}
