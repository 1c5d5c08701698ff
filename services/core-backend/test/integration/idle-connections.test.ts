/**
 * An idle installation (the core backend and the user service with policy-sync, as deployed)
 * keeps next to no PostgreSQL connection: its background loops (document follower, WhatsApp
 * outbox, deletions, the policy-sync outbox) poll less and less often while they find nothing, so
 * the pools close their connections between rounds. Scaled down in time: pools close a connection
 * after 1.5 s unused (10 s by default) and the loops wait at most 8 s (5 min by default). Polling
 * every second or two, as the loops did before, keeps a connection of each pool open all along.
 */
import pg from 'pg';
import { requireEnv } from '@pelita/testenv';
import { startCoreStack, type CoreStack } from './support/core-stack';

const SCALED = { DATABASE_POOL_IDLE_MS: '1500', IDLE_POLL_MAX_MS: '8000' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('an idle installation', () => {
  let stack: CoreStack;
  const monitor = new pg.Pool({
    connectionString: requireEnv('POSTGRES_URL').POSTGRES_URL,
    max: 1,
  });

  beforeAll(async () => {
    // An OCR service that is never called (no document is added): the document follower runs.
    stack = await startCoreStack({ ...SCALED, URL_OCR: 'http://127.0.0.1:9' }, SCALED);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await monitor.end();
  });

  /** The connections the installation holds to its database now. */
  const held = async () =>
    Number(
      (
        await monitor.query<{ n: string }>(
          'select count(*) as n from pg_stat_activity where datname = $1',
          [new URL(stack.platform.databaseUrl).pathname.slice(1)],
        )
      ).rows[0]!.n,
    );

  it('holds at most 2 connections (bar moments), and often none once its loops have slowed down', async () => {
    // Some use first, so the pools have connections to give back.
    const admin = await stack.admin();
    expect((await stack.call('GET', '/api/workspaces', admin.token)).status).toBe(200);
    // The loops reach their longest wait after 1 + 2 + 4 + 8 s (outboxes), 2 + 4 + 8 s (documents)
    // and 5 + 8 s (deletions).
    await sleep(16_000);
    const samples: number[] = [];
    for (const end = Date.now() + 12_000; Date.now() < end; await sleep(100)) {
      samples.push(await held());
    }
    const share = (when: (n: number) => boolean) => samples.filter(when).length / samples.length;
    // Two loops of one process may query at the same instant (more often on a loaded machine):
    // a third connection for a moment is allowed, not for long.
    expect(share((n) => n > 2)).toBeLessThan(0.05);
    // Four loops, each holding a connection for at most 1.5 s of every 8 s: at least a quarter free.
    expect(share((n) => n === 0)).toBeGreaterThan(0.2);
  }, 120_000);
});
