/**
 * The activity log of two installs in one index on the real OpenSearch: each reads only its own
 * entries, the index has the shards and replicas of the layout, and an install's own index from
 * before is moved in (and only the moved install reads its entries).
 */
import { randomBytes } from 'node:crypto';
import { createActivityRepository, type ActivityEntry } from '@pelita/kit';
import { requireEnv } from '@pelita/testenv';

const { OPENSEARCH_URL } = requireEnv('OPENSEARCH_URL');

const entry = (username: string): ActivityEntry => ({
  userId: null,
  username,
  action: 'POST /auth/login',
  method: 'POST',
  path: '/auth/login',
  statusCode: 200,
  ip: '127.0.0.1',
  userAgent: 'test',
  timestamp: new Date().toISOString(),
});

describe('an activity log index shared by installs', () => {
  const index = `kit-shared-activity-${randomBytes(4).toString('hex')}`;
  const legacy = `kit-legacy-activity-${randomBytes(4).toString('hex')}`;
  const layout = (tenant: string | undefined) => ({ tenant, shards: 2, replicas: 0 });
  const a = createActivityRepository(OPENSEARCH_URL, index, undefined, layout('ns-a/acme'));
  const b = createActivityRepository(OPENSEARCH_URL, index, undefined, layout('ns-b/acme'));

  afterAll(async () => {
    for (const name of [index, legacy]) {
      await fetch(`${OPENSEARCH_URL}/${name}`, { method: 'DELETE' });
    }
    await a.close();
    await b.close();
  });

  it('is created with the layout shards and replicas', async () => {
    await a.ensureIndex();
    await b.ensureIndex();
    const settings = (await (await fetch(`${OPENSEARCH_URL}/${index}/_settings`)).json()) as Record<
      string,
      { settings: { index: { number_of_shards: string; number_of_replicas: string } } }
    >;
    expect(settings[index]!.settings.index).toMatchObject({
      number_of_shards: '2',
      number_of_replicas: '0',
    });
  });

  it('answers each install its own entries only, the same filters and all', async () => {
    await a.record(entry('alice'));
    await a.record(entry('alice'));
    await b.record(entry('alice'));
    await b.refresh();
    const ofA = await a.search({ username: 'alice', page: 1, limit: 10 });
    const ofB = await b.search({ username: 'alice', page: 1, limit: 10 });
    expect([ofA.total, ofB.total]).toEqual([2, 1]);
    // The tenant is the index's bookkeeping, not part of an entry.
    expect(Object.keys(ofA.entries[0]!)).not.toContain('tenant');
  });

  it("moves an install's own index in: write-blocked first, then deleted", async () => {
    const before = createActivityRepository(OPENSEARCH_URL, legacy);
    await before.ensureIndex();
    await before.record(entry('carol'));
    await before.record(entry('dave'));
    await before.refresh();
    await before.close();
    const c = createActivityRepository(OPENSEARCH_URL, index, undefined, layout('ns-c/acme'));
    try {
      expect(await c.moveLegacy(legacy)).toBe(2);
      expect((await fetch(`${OPENSEARCH_URL}/${legacy}`, { method: 'HEAD' })).status).toBe(404);
      const moved = await c.search({ page: 1, limit: 10 });
      expect(moved.entries.map((found) => found.username).sort()).toEqual(['carol', 'dave']);
      expect((await a.search({ username: 'carol', page: 1, limit: 10 })).total).toBe(0);
      expect(await c.moveLegacy(legacy)).toBe(0);
    } finally {
      await c.close();
    }
  });

  it('ends with each entry once when two replicas move at the same time', async () => {
    const before = createActivityRepository(OPENSEARCH_URL, legacy);
    await before.ensureIndex();
    for (const name of ['erin', 'frank', 'grace']) await before.record(entry(name));
    await before.refresh();
    await before.close();
    const d1 = createActivityRepository(OPENSEARCH_URL, index, undefined, layout('ns-d/acme'));
    const d2 = createActivityRepository(OPENSEARCH_URL, index, undefined, layout('ns-d/acme'));
    try {
      // One may find the old index gone under it: the other finished the move.
      await Promise.allSettled([d1.moveLegacy(legacy), d2.moveLegacy(legacy)]);
      await d1.refresh();
      const moved = await d1.search({ page: 1, limit: 10 });
      expect(moved.entries.map((found) => found.username).sort()).toEqual([
        'erin',
        'frank',
        'grace',
      ]);
      expect((await fetch(`${OPENSEARCH_URL}/${legacy}`, { method: 'HEAD' })).status).toBe(404);
    } finally {
      await d1.close();
      await d2.close();
    }
  });

  it('leaves the old index read-only, whole and in place when the move fails', async () => {
    const before = createActivityRepository(OPENSEARCH_URL, legacy);
    await before.ensureIndex();
    await before.record(entry('heidi'));
    await before.refresh();
    // A shared index that cannot take the entries (`username` of another type there).
    const strict = `${index}-strict`;
    await fetch(`${OPENSEARCH_URL}/${strict}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        mappings: { dynamic: 'strict', properties: { tenant: { type: 'keyword' } } },
      }),
    });
    const e = createActivityRepository(OPENSEARCH_URL, strict, undefined, layout('ns-e/acme'));
    try {
      await expect(e.moveLegacy(legacy)).rejects.toThrow(/while writing to/);
      await expect(before.record(entry('late'))).rejects.toThrow(/blocked/);
      const left = await fetch(`${OPENSEARCH_URL}/${legacy}/_count`);
      expect(((await left.json()) as { count: number }).count).toBe(1);
    } finally {
      await e.close();
      await before.close();
      await fetch(`${OPENSEARCH_URL}/${strict}`, { method: 'DELETE' });
    }
  });
});
