/**
 * The measuring method of the proxy and kit benchmarks: every path is warmed up, then all paths
 * are measured one after the other, ROUNDS times over; each round gives a ratio of each path to
 * its baseline, and the median of those ratios is the figure. On a shared machine a neighbour's
 * burst then spoils one round of one ratio, not the result.
 */
import { readFileSync } from 'node:fs';
import { runCleanLoad, type LoadOptions, type LoadResult } from './load';

export interface MeasuredPath {
  name: string;
  load: LoadOptions;
  /** Name of the path this one is compared with; none for a pure baseline. */
  baseline?: string;
  /** The serving process, whose CPU time per request is reported (Linux). */
  pid?: number;
}

export interface AlternateOptions {
  connections: number;
  durationSeconds: number;
  warmUpSeconds: number;
  rounds: number;
}

export interface PathFigures {
  name: string;
  /** Median over the rounds. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Median of the per-round ratios to its baseline; undefined for a baseline. */
  ratio?: number;
  /** Every round's ratio, in order, to show the spread. */
  roundRatios: number[];
  /**
   * Median CPU time (user + system) the serving process spent per request: unlike throughput it
   * hardly depends on how busy the neighbours keep the machine.
   */
  cpuMicrosPerRequest?: number;
}

type Measured = LoadResult & { cpuMicrosPerRequest?: number };

export async function measureAlternating(
  paths: MeasuredPath[],
  options: AlternateOptions,
): Promise<PathFigures[]> {
  const load = async (path: MeasuredPath, durationSeconds: number): Promise<Measured> => {
    const before = cpuMicros(path.pid);
    const result = await runCleanLoad({
      ...path.load,
      connections: options.connections,
      durationSeconds,
    });
    const after = cpuMicros(path.pid);
    const requests = result.requestsPerSecond * durationSeconds;
    if (before === undefined || after === undefined || requests === 0) return result;
    return { ...result, cpuMicrosPerRequest: (after - before) / requests };
  };
  for (const path of paths) await load(path, options.warmUpSeconds);
  const rounds: Array<Map<string, Measured>> = [];
  for (let round = 0; round < options.rounds; round += 1) {
    const results = new Map<string, Measured>();
    for (const path of paths) results.set(path.name, await load(path, options.durationSeconds));
    rounds.push(results);
  }
  return paths.map((path) => {
    const of = (key: keyof LoadResult) =>
      median(rounds.map((results) => (results.get(path.name) as LoadResult)[key]));
    const cpu = rounds.map((results) => results.get(path.name)?.cpuMicrosPerRequest);
    const roundRatios =
      path.baseline === undefined
        ? []
        : rounds.map(
            (results) =>
              (results.get(path.name) as LoadResult).requestsPerSecond /
              (results.get(path.baseline as string) as LoadResult).requestsPerSecond,
          );
    return {
      name: path.name,
      requestsPerSecond: of('requestsPerSecond'),
      p50Ms: of('p50Ms'),
      p99Ms: of('p99Ms'),
      ...(path.baseline === undefined ? {} : { ratio: median(roundRatios) }),
      roundRatios,
      ...(cpu.every((c) => c !== undefined) ? { cpuMicrosPerRequest: median(cpu) } : {}),
    };
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Table rows of the figures: req/s, latency, ratio to the baseline with the rounds' spread. */
export function figureRows(figures: PathFigures[], targets: Record<string, string> = {}) {
  return figures.map((figure) => ({
    path: figure.name,
    'req/s': Math.round(figure.requestsPerSecond),
    'p50 ms': figure.p50Ms,
    'p99 ms': figure.p99Ms,
    'CPU us/req':
      figure.cpuMicrosPerRequest === undefined ? '-' : Math.round(figure.cpuMicrosPerRequest),
    ratio: figure.ratio === undefined ? '(baseline)' : figure.ratio.toFixed(2),
    rounds: figure.roundRatios.map((r) => r.toFixed(2)).join(' '),
    target: targets[figure.name] ?? '',
  }));
}

/** User + system CPU time of a process so far, in microseconds; undefined off Linux. */
function cpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // /proc/<pid>/stat: fields 14 and 15 (utime, stime) in clock ticks, after the `(name)` field.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * (1_000_000 / CLOCK_TICKS_PER_SECOND) : undefined;
  } catch {
    return undefined;
  }
}

/** USER_HZ: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;
