/**
 * Revocations while policy-sync is stopped: one grant revoked every 100 ms for 12 s, with the
 * policy-sync process frozen (SIGSTOP) from 3 s to 8 s — it accepts connections and answers
 * nothing, as a stalled pod does. Each revocation is its own grant (a path of its own), so each
 * one's arrival in OPA's decisions is seen apart. The user service's outbox must bring every
 * revocation to OPA, those made during the stop within a second of policy-sync resuming.
 */
import type { ChildProcess } from 'node:child_process';
import { percentile, report, table, timingRow } from './report';

const GRANTS = 120;
const EVERY_MS = 100;
const STOP_AT_MS = 3000;
const STOPPED_MS = 5000;

export interface OutageSetup {
  api: (method: string, path: string, body?: unknown) => Promise<{ id: number }>;
  allows: (user: string, method: string, path: string) => Promise<boolean>;
  waitAllowed: (user: string, path: string) => Promise<unknown>;
  roleId: number;
  username: string;
  policySync: ChildProcess;
}

interface Revocation {
  path: string;
  madeAt: number;
  duringStop: boolean;
  deniedAt?: number;
}

export async function measureOutage(setup: OutageSetup): Promise<void> {
  const { api, allows, roleId, username } = setup;
  const feature = await api('POST', '/features', { name: 'bench-outage', label: 'Outage' });
  const policies: Array<{ id: number; path: string }> = [];
  for (let i = 0; i < GRANTS; i += 1) {
    const path = `/bench/outage/${i}`;
    const sub = await api('POST', `/features/${feature.id}/sub-features`, {
      name: `read-${i}`,
      label: `Read ${i}`,
      method: 'GET',
      path,
    });
    const policy = await api('POST', '/policies', { role_id: roleId, sub_feature_id: sub.id });
    policies.push({ id: policy.id, path });
  }
  await setup.waitAllowed(username, policies[GRANTS - 1]!.path);

  const revocations: Revocation[] = [];
  let stoppedAt = 0;
  let resumedAt = 0;
  let revoking = true;
  // One watcher for all: every 10 ms, each revocation not yet seen in OPA is asked again.
  const watcher = (async () => {
    while (revoking || revocations.some((r) => r.deniedAt === undefined)) {
      for (const revocation of revocations.filter((r) => r.deniedAt === undefined)) {
        if (!(await allows(username, 'GET', revocation.path)))
          revocation.deniedAt = performance.now();
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();

  const start = performance.now();
  const outage = (async () => {
    await new Promise((resolve) => setTimeout(resolve, STOP_AT_MS));
    setup.policySync.kill('SIGSTOP');
    stoppedAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, STOPPED_MS));
    setup.policySync.kill('SIGCONT');
    resumedAt = performance.now();
  })();
  try {
    for (const [index, policy] of policies.entries()) {
      const due = start + index * EVERY_MS;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
      const madeAt = performance.now();
      await api('PATCH', `/policies/${policy.id}`, { status: false });
      revocations.push({
        path: policy.path,
        madeAt,
        duringStop: stoppedAt > 0 && resumedAt === 0,
      });
    }
  } finally {
    await outage;
    setup.policySync.kill('SIGCONT');
    revoking = false;
  }
  await Promise.race([
    watcher,
    new Promise((_, reject) =>
      setTimeout(() => reject(new Error('revocations missing from OPA after 30 s')), 30_000),
    ),
  ]);

  const whileUp = revocations.filter((r) => !r.duringStop).map((r) => r.deniedAt! - r.madeAt);
  const during = revocations.filter((r) => r.duringStop);
  const sinceResume = during.map((r) => r.deniedAt! - resumedAt);
  report(
    `\nrevocations with policy-sync stopped (SIGSTOP) for ${STOPPED_MS / 1000} s: ${GRANTS} grants ` +
      `revoked every ${EVERY_MS} ms through PATCH /policies/:id, ${during.length} of them during the stop`,
  );
  table([
    timingRow('made while policy-sync ran: call → OPA denies', whileUp),
    timingRow(
      'made during the stop: call → OPA denies',
      during.map((r) => r.deniedAt! - r.madeAt),
    ),
    timingRow('made during the stop: policy-sync resumed → OPA denies', sinceResume),
  ]);
  const p99 = percentile(whileUp, 99);
  const p99Resumed = percentile(sinceResume, 99);
  report(
    `p99 while running ${p99.toFixed(1)} ms, after resuming ${p99Resumed.toFixed(1)} ms; ` +
      `target < 1000 ms: ${p99 < 1000 && p99Resumed < 1000 ? 'met' : 'missed'} ` +
      `(the trigger before the outbox gave up after ~1.75 s: those made during the stop waited for the 60 s resync)`,
  );
}
