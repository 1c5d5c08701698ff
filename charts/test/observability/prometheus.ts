/**
 * The test environment's Prometheus (`make testenv`), seen from a test: register in-process
 * services as scrape targets (file_sd files in PROMETHEUS_TARGETS_DIR, picked up by inotify)
 * and run PromQL through its HTTP API.
 */
import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { requireEnv, waitFor } from '@pelita/testenv';

export interface Target {
  /** host:port of a /metrics endpoint on loopback. */
  address: string;
  /** Target labels, as the Prometheus Operator and the install's ServiceMonitor would set them. */
  labels: Record<string, string>;
}

export interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

export type QueryResult =
  { ok: true; resultType: string; series: Sample[] } | { ok: false; error: string };

export interface TestPrometheus {
  url: string;
  /** Scrapes `targets` until `remove()`; resolves once every one of them has been scraped up. */
  register(targets: Target[]): Promise<{ remove(): void }>;
  /** An instant query at the current time. */
  query(expr: string): Promise<QueryResult>;
  /**
   * A query asked again (every 250 ms, up to `timeoutMs`) until it has a series: with 1 s scrapes
   * on a loaded machine a scrape can miss its 1 s time-out, and the target's series are stale
   * for that moment. An error answer, or no series by the end, is returned as it is.
   */
  querySeries(expr: string, timeoutMs?: number): Promise<QueryResult>;
}

interface ActiveTarget {
  scrapeUrl: string;
  health: 'up' | 'down' | 'unknown';
  lastError: string;
}

export function testPrometheus(): TestPrometheus {
  const { PROMETHEUS_URL, PROMETHEUS_TARGETS_DIR } = requireEnv(
    'PROMETHEUS_URL',
    'PROMETHEUS_TARGETS_DIR',
  );

  async function query(expr: string): Promise<QueryResult> {
    const res = await fetch(`${PROMETHEUS_URL}/api/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query: expr }),
    });
    const body = (await res.json()) as {
      status: string;
      error?: string;
      data?: { resultType: string; result: Sample[] | [number, string] };
    };
    if (body.status !== 'success' || !body.data) {
      return { ok: false, error: `${res.status} ${body.error ?? 'no data'}` };
    }
    // A scalar result (e.g. `vector(0)` folded) counts as one series.
    const { resultType, result } = body.data;
    const series =
      resultType === 'scalar' ? [{ metric: {}, value: result as [number, string] }] : result;
    return { ok: true, resultType, series: series as Sample[] };
  }

  async function querySeries(expr: string, timeoutMs = 15_000): Promise<QueryResult> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const result = await query(expr);
      if (!result.ok || result.series.length > 0 || Date.now() > deadline) return result;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  async function activeTargets(): Promise<ActiveTarget[]> {
    const res = await fetch(`${PROMETHEUS_URL}/api/v1/targets?state=active`);
    return ((await res.json()) as { data: { activeTargets: ActiveTarget[] } }).data.activeTargets;
  }

  async function register(targets: Target[]) {
    const file = path.join(PROMETHEUS_TARGETS_DIR, `test-${randomBytes(6).toString('hex')}.json`);
    const groups = targets.map((t) => ({ targets: [t.address], labels: t.labels }));
    // Written whole under a temporary name, then renamed: Prometheus never reads half a file.
    writeFileSync(`${file}.tmp`, JSON.stringify(groups));
    renameSync(`${file}.tmp`, file);
    const remove = () => rmSync(file, { force: true });
    const wanted = targets.map((t) => `http://${t.address}/metrics`);
    try {
      await waitFor(
        async () => {
          const active = await activeTargets();
          const missing = wanted.filter(
            (url) => !active.some((a) => a.scrapeUrl === url && a.health === 'up'),
          );
          if (missing.length === 0) return true;
          const errors = active.filter((a) => missing.includes(a.scrapeUrl) && a.lastError);
          throw new Error(
            `not scraped yet: ${missing.join(', ')}${errors.map((a) => ` (${a.scrapeUrl}: ${a.lastError})`).join('')}`,
          );
        },
        { what: 'Prometheus to scrape every target', timeoutMs: 30_000, intervalMs: 250 },
      );
    } catch (err) {
      remove();
      throw err;
    }
    return { remove };
  }

  return { url: PROMETHEUS_URL, register, query, querySeries };
}
