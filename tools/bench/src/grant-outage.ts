/**
 * Revocations while policy-sync is out of reach, two ways, each grant revoked being its own (a
 * path of its own) so each one's arrival in OPA's decisions is seen apart:
 * - stopped: the policy-sync process frozen (SIGSTOP) for 5 s while a grant is revoked every
 *   100 ms for 12 s — it accepts connections and answers nothing, as a stalled pod does;
 * - unreachable: the link to policy-sync cut for 5 s (connections refused, the process running,
 *   so no start-up sync of its own), the revocations ending during the cut — nothing later
 *   carries them along.
 * The user service's outbox must bring every revocation to OPA, those made during the outage
 * within a second of policy-sync being back. Run with PELITA_BENCH_USER_SERVICE pointing at an
 * older build to measure it the same way.
 */
import type { ChildProcess } from 'node:child_process';
import { percentile, report, table, timingRow } from './report';
import type { TcpLink } from '@pelita/testenv';

const EVERY_MS = 100;
const OUTAGE_MS = 5000;
/** Revocations not in OPA this long after the last one are reported missing. */
const GIVE_UP_MS = 30_000;

interface Scenario {
  name: string;
  grants: number;
  outageAtMs: number;
  begin(): Promise<void> | void;
  end(): Promise<void> | void;
}

export interface OutageSetup {
  api: (method: string, path: string, body?: unknown) => Promise<{ id: number }>;
  allows: (user: string, method: string, path: string) => Promise<boolean>;
  waitAllowed: (user: string, path: string) => Promise<unknown>;
  roleId: number;
  username: string;
  policySync: ChildProcess;
  /** The user service's way to policy-sync (its POLICY_SYNC_URL). */
  link: TcpLink;
}

interface Revocation {
  path: string;
  madeAt: number;
  deniedAt?: number;
}

export async function measureOutages(setup: OutageSetup): Promise<void> {
  const scenarios: Scenario[] = [
    {
      name: `policy-sync stopped (SIGSTOP) for ${OUTAGE_MS / 1000} s`,
      grants: 120,
      outageAtMs: 3000,
      begin: () => void setup.policySync.kill('SIGSTOP'),
      end: () => void setup.policySync.kill('SIGCONT'),
    },
    {
      name: `policy-sync unreachable (connections refused) for ${OUTAGE_MS / 1000} s, the last revocations during it`,
      grants: 40,
      outageAtMs: 1000,
      begin: () => setup.link.cut(),
      end: () => setup.link.restore(),
    },
  ];
  for (const [index, scenario] of scenarios.entries()) {
    await measureOutage(setup, scenario, await grantsFor(setup, index, scenario.grants));
  }
}

async function grantsFor(setup: OutageSetup, scenario: number, count: number) {
  const feature = await setup.api('POST', '/features', {
    name: `bench-outage-${scenario}`,
    label: 'Outage',
  });
  const policies: Array<{ id: number; path: string }> = [];
  for (let i = 0; i < count; i += 1) {
    const path = `/bench/outage/${scenario}/${i}`;
    const sub = await setup.api('POST', `/features/${feature.id}/sub-features`, {
      name: `read-${i}`,
      label: `Read ${i}`,
      method: 'GET',
      path,
    });
    const policy = await setup.api('POST', '/policies', {
      role_id: setup.roleId,
      sub_feature_id: sub.id,
    });
    policies.push({ id: policy.id, path });
  }
  await setup.waitAllowed(setup.username, policies[count - 1]!.path);
  return policies;
}

async function measureOutage(
  setup: OutageSetup,
  scenario: Scenario,
  policies: Array<{ id: number; path: string }>,
): Promise<void> {
  const { api, allows, username } = setup;
  const revocations: Revocation[] = [];
  let outageFrom = 0;
  let backAt = 0;
  let revoking = true;
  let watching = true;
  // One watcher for all: every 10 ms, each revocation not yet seen in OPA is asked again.
  const watcher = (async () => {
    while (watching && (revoking || revocations.some((r) => r.deniedAt === undefined))) {
      for (const revocation of revocations.filter((r) => r.deniedAt === undefined)) {
        if (!(await allows(username, 'GET', revocation.path)))
          revocation.deniedAt = performance.now();
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();

  const start = performance.now();
  const outage = (async () => {
    await new Promise((resolve) => setTimeout(resolve, scenario.outageAtMs));
    await scenario.begin();
    outageFrom = performance.now();
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    await scenario.end();
    backAt = performance.now();
  })();
  try {
    for (const [index, policy] of policies.entries()) {
      const due = start + index * EVERY_MS;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
      const madeAt = performance.now();
      await api('PATCH', `/policies/${policy.id}`, { status: false });
      revocations.push({ path: policy.path, madeAt });
    }
  } finally {
    await outage;
    revoking = false;
  }
  const giveUp = setTimeout(() => (watching = false), GIVE_UP_MS);
  await watcher;
  clearTimeout(giveUp);

  // Caught by the outage: made during it, or made before and not yet in OPA when it began (a
  // sync in flight when the process froze). Those are timed from policy-sync's return.
  const caught = (r: Revocation) =>
    (r.madeAt >= outageFrom && r.madeAt < backAt) ||
    (r.madeAt < outageFrom && (r.deniedAt === undefined || r.deniedAt > outageFrom));
  const seen = revocations.filter((r) => r.deniedAt !== undefined);
  const whileUp = seen.filter((r) => !caught(r)).map((r) => r.deniedAt! - r.madeAt);
  const during = seen.filter(caught);
  const sinceBack = during.map((r) => Math.max(0, r.deniedAt! - backAt));
  const missing = revocations.length - seen.length;
  const madeDuring = revocations.filter(caught).length;
  report(
    `\nrevocations with ${scenario.name}: ${policies.length} grants revoked every ${EVERY_MS} ms ` +
      `through PATCH /policies/:id, ${madeDuring} of them caught by the outage (made during it, or not in OPA yet when it began)`,
  );
  table([
    timingRow('not caught: call → OPA denies', whileUp),
    timingRow(
      'caught: call → OPA denies',
      during.map((r) => r.deniedAt! - r.madeAt),
    ),
    timingRow('caught: policy-sync back → OPA denies', sinceBack),
  ]);
  const p99 = percentile(whileUp, 99);
  const p99Back = percentile(sinceBack, 99);
  const met = p99 < 1000 && (sinceBack.length === 0 || p99Back < 1000) && missing === 0;
  report(
    `p99 while there ${p99.toFixed(1)} ms, after it came back ${p99Back.toFixed(1)} ms; ` +
      `${missing} of ${revocations.length} not in OPA ${GIVE_UP_MS / 1000} s after the last; ` +
      `target < 1000 ms, none missing: ${met ? 'met' : 'missed'}`,
  );
}
