/** Task status records against a real Redis: shared, merged atomically, the oldest finished evicted. */
import { randomBytes } from 'node:crypto';
import { requireEnv } from '@pelita/testenv';
import { Redis } from 'ioredis';
import { createStatusStore } from '../../src/status/status-store';
import { timestampWithoutZone, type TaskRecord } from '../../src/status/task-record';

const { REDIS_URL } = requireEnv('REDIS_URL');

describe('status store', () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  const prefixes: string[] = [];
  const storeOf = (keep = 1000) => {
    const prefix = `pelita:test:ocr:${randomBytes(4).toString('hex')}`;
    prefixes.push(prefix);
    return createStatusStore(redis, { prefix, keep });
  };
  afterAll(async () => {
    for (const prefix of prefixes) {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
    }
    redis.disconnect();
  });

  const record = (taskId: string, status: TaskRecord['status'] = 'pending'): TaskRecord => ({
    task_id: taskId,
    status,
    stage: 'pending',
    progress_pct: 0,
    stage_detail: 'waiting for a worker',
    created_at: timestampWithoutZone(),
  });

  it('creates a record once (a taken task id is refused) and reads it from any client', async () => {
    const store = storeOf();
    expect(await store.create(record('a'))).toBe(true);
    expect(await store.create(record('a'))).toBe(false);
    const other = new Redis(REDIS_URL);
    try {
      const fromOther = createStatusStore(other, { prefix: prefixes.at(-1) ?? '', keep: 1000 });
      expect(await fromOther.get('a')).toMatchObject({ task_id: 'a', status: 'pending' });
    } finally {
      other.disconnect();
    }
    expect(await store.get('missing')).toBeUndefined();
  });

  it('merges concurrent updates without losing fields', async () => {
    const store = storeOf();
    await store.create(record('b'));
    await Promise.all([
      store.update('b', { status: 'processing', started_at: timestampWithoutZone() }),
      store.update('b', { stage: 'ocr_polling', progress_pct: 40 }),
      store.update('b', { queue_wait_ms: 12 }),
    ]);
    expect(await store.get('b')).toMatchObject({
      status: 'processing',
      stage: 'ocr_polling',
      progress_pct: 40,
      queue_wait_ms: 12,
      started_at: expect.any(String),
    });
    expect(await store.update('missing', { progress_pct: 1 })).toBeUndefined();
  });

  it('keeps the newest records, evicting the oldest finished ones and never an unfinished one', async () => {
    const store = storeOf(3);
    await store.create(record('old-pending'));
    await store.create(record('old-done', 'done'));
    await store.create(record('mid-failed', 'failed'));
    await store.create(record('new-1', 'done'));
    const total = async () => (await store.counts()).reduce((sum, entry) => sum + entry.count, 0);
    expect(await total()).toBe(3);
    expect(await store.get('old-done')).toBeUndefined();
    await store.create(record('new-2'));
    expect(await store.get('mid-failed')).toBeUndefined();
    expect(await store.get('old-pending')).toMatchObject({ status: 'pending' });
    expect(await total()).toBe(3);
  });

  it('counts records by status and stage, and removes one', async () => {
    const store = storeOf();
    await store.create(record('p1'));
    await store.create(record('p2'));
    await store.create(record('d1', 'done'));
    expect(await store.counts()).toEqual(
      expect.arrayContaining([
        { status: 'pending', stage: 'pending', count: 2 },
        { status: 'done', stage: 'pending', count: 1 },
      ]),
    );
    await store.remove('p1');
    expect(await store.get('p1')).toBeUndefined();
    expect(await store.counts()).toEqual(
      expect.arrayContaining([{ status: 'pending', stage: 'pending', count: 1 }]),
    );
  });

  it('writes timestamps without a zone, as the seed shows them', () => {
    expect(timestampWithoutZone(new Date('2026-11-24T01:50:00.123Z'))).toBe(
      '2026-11-24T01:50:00.123',
    );
  });
});
