/**
 * The policy-sync outbox: a role-data change and its outbox row are written in one transaction,
 * and the row is sent until policy-sync confirms it — however long policy-sync was unreachable —
 * so a revocation reaches OPA without waiting for the periodic resync. (The trigger this
 * replaced gave up after ~1.75 s of retries.) Policy-sync's own resync is off in these platforms.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@pelita/testenv';
import pg from 'pg';
import { newMailedToken } from './support/mailbox';
import { ADMIN, startPlatform, type Platform } from './support/platform';

async function outboxRows(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ target: string }>(
      'select target from policy_sync_outbox order by id',
    );
    return rows.map((row) => row.target);
  } finally {
    await client.end();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('a revocation while policy-sync is unreachable', () => {
  let platform: Platform;
  let admin: string;
  const call = async (method: string, path: string, body?: unknown): Promise<{ id: number }> => {
    const res = await platform.request(method, path, {
      token: admin,
      ...(body === undefined ? {} : { body }),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : {}) as { id: number };
  };

  beforeAll(async () => {
    platform = await startPlatform();
    await waitFor(() => platform.allows(ADMIN.username, 'GET', '/users'), 'the admin in OPA');
    admin = (await platform.login(ADMIN.email, ADMIN.password)).access_token;
  });
  afterAll(async () => {
    await platform?.policySyncLink.restore().catch(() => undefined);
    await platform?.stop();
  });

  /** A member of a new role holding GET `path` through a policy; waits until OPA allows it. */
  async function grantedMember(path: string) {
    const suffix = Math.random().toString(16).slice(2, 8);
    const role = await call('POST', '/roles', { name: `outbox-${suffix}`, level: 50 });
    const username = `outbox-${suffix}`;
    await call('POST', '/users', {
      email: `${username}@pelita.test`,
      username,
      full_name: 'Outbox Member',
      password: 'outbox-pw-1234',
      role_id: role.id,
    });
    const feature = await call('POST', '/features', { name: `outbox-${suffix}`, label: 'x' });
    const sub = await call('POST', `/features/${feature.id}/sub-features`, {
      name: 'read',
      label: 'Read',
      method: 'GET',
      path,
    });
    const policy = await call('POST', '/policies', { role_id: role.id, sub_feature_id: sub.id });
    await waitFor(() => platform.allows(username, 'GET', path), 'the grant in OPA');
    await platform.service.outbox!.drained();
    return { username, policy };
  }

  it('reaches OPA within a second of policy-sync being reachable again', async () => {
    const { username, policy } = await grantedMember('/features');
    await platform.policySyncLink.cut();
    await call('PATCH', `/policies/${policy.id}`, { status: false });
    // Longer than the earlier trigger's retries (0.25 + 0.5 + 1 s): it had given up by now.
    await sleep(3000);
    expect(await platform.allows(username, 'GET', '/features')).toBe(true);
    expect(await outboxRows(platform.databaseUrl)).toEqual(['role-grants']);
    expect(
      await platform.metric('user_service_policy_sync_triggers_total', {
        target: 'role-grants',
        outcome: 'failure',
      }),
    ).toBeGreaterThanOrEqual(3);

    await platform.policySyncLink.restore();
    const back = performance.now();
    await waitFor(async () => !(await platform.allows(username, 'GET', '/features')), {
      what: 'the revocation in OPA',
      timeoutMs: 5000,
      intervalMs: 10,
    });
    expect(performance.now() - back).toBeLessThan(1000);
    await platform.service.outbox!.drained();
    expect(await outboxRows(platform.databaseUrl)).toEqual([]);
  });

  it('writes no row for a change that failed, and sends rows an earlier process left behind', async () => {
    const { username, policy } = await grantedMember('/roles');
    // A duplicate role name is refused: its transaction leaves nothing in the outbox.
    await platform.policySyncLink.cut();
    const duplicate = await platform.request('POST', '/roles', {
      token: admin,
      body: { name: 'admin', level: 60 },
    });
    expect(duplicate.status).toBe(409);
    expect(await outboxRows(platform.databaseUrl)).toEqual([]);
    await platform.policySyncLink.restore();

    // A process that committed a change and its row, then died before sending it: another
    // (here the running one, at its next look at the outbox) sends it.
    const client = new pg.Client({ connectionString: platform.databaseUrl });
    await client.connect();
    await client.query('begin');
    await client.query('update policies set status = false where id = $1', [policy.id]);
    await client.query("insert into policy_sync_outbox (target) values ('role-grants')");
    await client.query('commit');
    await client.end();
    await waitFor(async () => !(await platform.allows(username, 'GET', '/roles')), {
      what: 'the left-behind change in OPA',
      timeoutMs: 3000,
    });
    await platform.service.outbox!.drained();
  });
});

describe('the outbox against a recording policy-sync', () => {
  // The SMTP receiver keeps every run's mail: addresses of this run only.
  const suffix = Math.random().toString(16).slice(2, 8);
  let platform: Platform;
  const calls: Array<{ path: string; authorization: string | undefined }> = [];
  let failuresLeft = 0;
  /** 200 answers saying not every replica confirmed, before the ones that do. */
  let unconfirmedLeft = 0;
  let server: Server;

  beforeAll(async () => {
    server = createServer((req, res) => {
      calls.push({ path: req.url ?? '', authorization: req.headers.authorization });
      if (failuresLeft-- > 0) return void res.writeHead(503).end();
      const replicas = unconfirmedLeft-- > 0 ? { expected: 3, confirmed: 2 } : undefined;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ info: 'synced', ...(replicas ? { replicas } : {}) }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    platform = await startPlatform({
      REGISTRATION_ENABLED: 'true',
      POLICY_SYNC_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      POLICY_SYNC_TOKEN: 'sync-token-1',
      OPEN_API_TOKEN: 'open-api-token-4',
    });
    await platform.service.outbox!.drained();
  });
  afterAll(async () => {
    await platform?.stop();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** A registered account whose owner confirms it: a change of `role-users`. */
  async function newConfirmedUser(username: string): Promise<void> {
    const email = `${username}@pelita.test`;
    const res = await platform.request('POST', '/auth/register', {
      body: { email, username, full_name: 'Outbox', password: 'outbox-pw-12345' },
    });
    expect(res.status).toBe(201);
    const token = await newMailedToken(email, '/verify-email');
    const verified = await platform.request('POST', '/auth/verify-email', { body: { token } });
    expect(verified.status).toBe(200);
  }

  it('retries until policy-sync answers 200, with the service token; the user never waits', async () => {
    calls.length = 0;
    failuresLeft = 2;
    await newConfirmedUser(`first-${suffix}`);
    await platform.service.outbox!.drained();
    expect(calls).toEqual(
      Array(3).fill({ path: '/role-users', authorization: 'Bearer sync-token-1' }),
    );
  });

  it('keeps the change while a policy-sync replica has not confirmed it (its OPA may still allow)', async () => {
    calls.length = 0;
    unconfirmedLeft = 2;
    await newConfirmedUser(`partial-${suffix}`);
    await platform.service.outbox!.drained();
    expect(calls.map((call) => call.path)).toEqual(Array(3).fill('/role-users'));
  });

  it('sends one call for a burst of changes', async () => {
    failuresLeft = 1_000_000; // policy-sync refuses while the burst is made
    for (let i = 0; i < 5; i++) await newConfirmedUser(`burst-${i}-${suffix}`);
    expect(await outboxRows(platform.databaseUrl)).toEqual(Array(5).fill('role-users'));
    calls.length = 0;
    failuresLeft = 0;
    await platform.service.outbox!.drained();
    expect(calls).toEqual([{ path: '/role-users', authorization: 'Bearer sync-token-1' }]);
  });

  it('requires OPEN_API_TOKEN on the open-api endpoints when it is set', async () => {
    expect((await platform.request('GET', '/open-api/role-users')).status).toBe(401);
    const wrong = await platform.request('GET', '/open-api/role-grants', {
      headers: { authorization: 'Bearer nope' },
    });
    expect(wrong.status).toBe(401);
    const right = await platform.request('GET', '/open-api/role-users', {
      headers: { authorization: 'Bearer open-api-token-4' },
    });
    expect(right.status).toBe(200);
    expect(((await right.json()) as any).user_roles[`first-${suffix}`]).toEqual(['user']);
    // The kit's check: the scheme is case-insensitive (RFC 9110), a longer token is no match.
    const lowercase = await platform.request('GET', '/open-api/role-users', {
      headers: { authorization: 'bearer open-api-token-4' },
    });
    expect(lowercase.status).toBe(200);
    const longer = await platform.request('GET', '/open-api/role-users', {
      headers: { authorization: 'Bearer open-api-token-40' },
    });
    expect(longer.status).toBe(401);
  });
});

describe('an empty outbox', () => {
  let platform: Platform;
  let monitor: pg.Client;
  beforeAll(async () => {
    platform = await startPlatform({ POLICY_SYNC_POLL_MS: '200', IDLE_POLL_MAX_MS: '1000' });
    await platform.service.outbox!.drained();
    // Statistics of the platform's database, read from another one: this client counts in none.
    const other = new URL(platform.databaseUrl);
    other.pathname = '/postgres';
    monitor = new pg.Client({ connectionString: other.toString() });
    await monitor.connect();
  });
  afterAll(async () => {
    await monitor?.end();
    await platform?.stop();
  });

  /** Transactions committed in the platform's database so far (each look: one or two). */
  async function transactions(): Promise<number> {
    await monitor.query('select pg_stat_clear_snapshot()');
    const { rows } = await monitor.query<{ n: string }>(
      'select xact_commit as n from pg_stat_database where datname = $1',
      [new URL(platform.databaseUrl).pathname.slice(1)],
    );
    return Number(rows[0]!.n);
  }

  it('is looked at less and less often, not over and over', async () => {
    // The waits grow 0.2, 0.4, 0.8, then stay at 1 s.
    await sleep(2000);
    const before = await transactions();
    await sleep(4000);
    // About four looks of two transactions (the claim, then the count); a loop that did not
    // wait would make thousands. Statistics reach pg_stat_database within a second.
    await sleep(1100);
    expect((await transactions()) - before).toBeLessThan(30);
  });
});
