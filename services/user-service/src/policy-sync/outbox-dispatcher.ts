/**
 * Sends the outbox to policy-sync: `GET {POLICY_SYNC_URL}/role-users` or `/role-grants` for the
 * due rows, deleted once policy-sync answers 200 with every replica confirmed (each replica's
 * OPA then holds data fetched after the call arrived, so after the change was committed),
 * postponed with a growing pause otherwise — for as long as it takes, never given up. The
 * change's own request never waits.
 *
 * The replica that made a change is woken at once; the others poll, so a row a crashed replica
 * left behind is sent by the next. An empty outbox is polled less and less often (up to
 * IDLE_POLL_MAX_MS), so an idle installation keeps no connection open. Rows are claimed with `for update skip locked` in a
 * transaction that lasts the call: two replicas never send the same row, and the rows of a
 * replica that dies mid-call are free again when its connection drops.
 */
import {
  createIdleBackoff,
  declareSeries,
  errorMessage,
  inTraceOf,
  inTransaction,
  type Logger,
} from '@pelita/kit';
import type { Pool, PoolClient } from 'pg';
import type { Registry } from 'prom-client';
import type { OutboxRepository, OutboxRow, SyncTarget } from './outbox-repository';

export interface OutboxDispatcherOptions {
  pool: Pool;
  outbox: OutboxRepository;
  baseUrl: string;
  token?: string | undefined;
  logger: Logger;
  registry: Registry;
  /**
   * How often the outbox is looked at without a wake-up (rows of other replicas) while it holds
   * rows; empty, the wait doubles up to `idlePollMaxMs`.
   */
  pollMs: number;
  idlePollMaxMs: number;
  /** The pause after a failed call doubles from 100 ms up to this. */
  retryMaxMs: number;
  timeoutMs: number;
}

export interface OutboxDispatcher {
  start(): void;
  /** A change was committed here: look at the outbox now rather than at the next poll. */
  wake(): void;
  /** Ends the loop after the running pass. */
  stop(): Promise<void>;
  /** Resolves once the outbox is empty; rejects after `timeoutMs` (tests, benchmarks). */
  drained(timeoutMs?: number): Promise<void>;
}

const BATCH = 500;
const FIRST_RETRY_MS = 100;

export function createOutboxDispatcher(options: OutboxDispatcherOptions): OutboxDispatcher {
  const { pool, outbox, baseUrl, token, logger, pollMs, retryMaxMs, timeoutMs } = options;
  const metrics = outboxMetrics(options.registry);
  let running: Promise<void> | undefined;
  let stopped = false;
  // Set by wake(): a change committed during a pass is looked at before the loop sleeps.
  let woken = false;
  let interruptSleep: (() => void) | undefined;
  const backoff = createIdleBackoff(pollMs, options.idlePollMaxMs);

  /** undefined when policy-sync confirmed; what went wrong otherwise. */
  async function call(target: SyncTarget): Promise<string | undefined> {
    try {
      const res = await fetch(`${baseUrl}/${target}`, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!res.ok) {
        await res.body?.cancel();
        return `policy-sync answered ${res.status}`;
      }
      return unconfirmedReplicas(await res.json().catch(() => undefined));
    } catch (err) {
      return `policy-sync unreachable: ${errorMessage(err)}`;
    }
  }

  /**
   * One call for `rows`, in a span of the trace of the request that made the oldest of their
   * changes (its row's traceparent), so policy-sync's work and OPA's joins the administrator's
   * trace; the other changes the call confirms are linked to the span.
   */
  async function send(client: PoolClient, target: SyncTarget, rows: OutboxRow[]) {
    const traces = rows.map((row) => row.traceparent ?? undefined);
    await inTraceOf(
      traces.find(Boolean),
      'policy-sync outbox',
      async (span) => {
        span.setAttribute('policy_sync.target', target);
        span.setAttribute('policy_sync.changes', rows.length);
        await sendTraced(client, target, rows);
      },
      { links: traces },
    );
  }

  async function sendTraced(client: PoolClient, target: SyncTarget, rows: OutboxRow[]) {
    const ids = rows.map((row) => row.id);
    const failure = await call(target);
    if (failure === undefined) {
      for (const seconds of await outbox.confirm(client, ids)) {
        metrics.propagation.observe({ target }, seconds);
      }
      metrics.calls.inc({ target, outcome: 'success' });
      return;
    }
    metrics.calls.inc({ target, outcome: 'failure' });
    const attempt = Math.max(...rows.map((row) => row.attempts)) + 1;
    const delayMs = Math.min(FIRST_RETRY_MS * 2 ** (attempt - 1), retryMaxMs);
    await outbox.postpone(client, ids, delayMs, failure);
    // The first failure and then every 50th: an outage of minutes is not a flood of lines.
    if (attempt === 1 || attempt % 50 === 0) {
      logger.warn(
        { target, attempt, rows: ids.length, error: failure },
        'policy-sync did not confirm a role-data change; retrying until it does',
      );
    }
  }

  /** One round over the due rows; returns how many it handled. */
  async function pass(): Promise<number> {
    return inTransaction(pool, async (client) => {
      const rows = await outbox.claimDue(client, BATCH);
      const byTarget = new Map<SyncTarget, OutboxRow[]>();
      for (const row of rows) byTarget.set(row.target, [...(byTarget.get(row.target) ?? []), row]);
      // One call confirms every row of its target: a burst of changes costs one sync.
      await Promise.all([...byTarget].map(([target, group]) => send(client, target, group)));
      return rows.length;
    });
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        interruptSleep = undefined;
        resolve();
      }
      interruptSleep = done;
    });
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      woken = false;
      let handled = 0;
      try {
        handled = await pass();
      } catch (err) {
        logger.error({ err: errorMessage(err) }, 'while sending the policy-sync outbox');
      }
      if (stopped) break;
      if (handled > 0 || woken) {
        backoff.reset();
        continue;
      }
      const pending = await outbox.pending().catch(() => undefined);
      if (pending) metrics.pending.set(pending.count);
      if (woken) continue;
      if (pending?.count) backoff.reset();
      const wait = pending?.count ? pollMs : backoff.idle();
      await sleep(Math.min(wait, pending?.nextDueMs ?? wait));
    }
  }

  return {
    start() {
      running ??= loop();
    },
    wake() {
      woken = true;
      backoff.reset();
      interruptSleep?.();
    },
    async stop() {
      stopped = true;
      interruptSleep?.();
      await running;
    },
    async drained(waitMs = 10_000) {
      const deadline = Date.now() + waitMs;
      for (;;) {
        const { count } = await outbox.pending();
        if (count === 0) return;
        if (Date.now() > deadline) throw new Error(`policy-sync outbox still holds ${count} rows`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

/**
 * Policy-sync answers how many of its replicas (each beside an OPA) hold the change; one that
 * did not confirm may still allow what was revoked, so the change is not confirmed yet. An
 * answer without the count (an older policy-sync) confirms its own replica only.
 */
function unconfirmedReplicas(body: unknown): string | undefined {
  const replicas = (body as { replicas?: { expected?: unknown; confirmed?: unknown } } | undefined)
    ?.replicas;
  if (typeof replicas?.expected !== 'number' || typeof replicas.confirmed !== 'number') return;
  if (replicas.confirmed >= replicas.expected) return;
  return `${replicas.confirmed} of ${replicas.expected} policy-sync replicas confirmed`;
}

function outboxMetrics(registry: Registry) {
  return declareSeries(registry, {
    calls: {
      kind: 'counter',
      name: 'user_service_policy_sync_triggers_total',
      help: 'Calls to policy-sync for role-data changes in the outbox, by target and outcome',
      labels: ['target', 'outcome'],
    },
    propagation: {
      kind: 'histogram',
      name: 'user_service_policy_sync_confirm_seconds',
      help: 'From a role-data change to policy-sync confirming it holds it in OPA',
      labels: ['target'],
      buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    },
    pending: {
      kind: 'gauge',
      name: 'user_service_policy_sync_outbox_rows',
      help: 'Role-data changes policy-sync has not confirmed yet (as last seen)',
    },
  });
}
