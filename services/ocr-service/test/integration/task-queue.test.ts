/** The durable queue against a real Redis: bound, hand-over after a worker dies, heartbeats, trace context. */
import { randomBytes } from 'node:crypto';
import { requireEnv } from '@pelita/testenv';
import { Redis } from 'ioredis';
import { createTaskQueue, type QueueOptions, type TaskQueue } from '../../src/queue/task-queue';

const { REDIS_URL } = requireEnv('REDIS_URL');

describe('task queue on Redis Streams', () => {
  const clients: Redis[] = [];
  const streams: string[] = [];
  const connect = () => {
    const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
    clients.push(client);
    return client;
  };
  const queueOf = async (options: Partial<QueueOptions> = {}, redis = connect()) => {
    const stream = options.stream ?? `pelita:test:ocr-queue:${randomBytes(4).toString('hex')}`;
    streams.push(stream);
    const queue = createTaskQueue(redis, {
      stream,
      group: 'ocr-workers',
      maxLength: 10,
      claimIdleMs: 300,
      maxDeliveries: 3,
      ...options,
    });
    await queue.ensure();
    return queue;
  };
  afterAll(async () => {
    if (clients[0]) await clients[0].del(...streams);
    for (const client of clients) client.disconnect();
  });

  const sleepUntil = async (done: () => boolean) => {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
  };

  it('delivers a task once, with its trace context, and forgets it when acknowledged', async () => {
    const queue = await queueOf();
    await queue.ensure(); // idempotent
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    expect(await queue.enqueue('task-1', { job: '{"a":1}', traceparent })).toMatchObject({
      queued: true,
    });
    const task = await queue.next('worker-a', 100);
    expect(task).toMatchObject({ taskId: 'task-1', job: '{"a":1}', traceparent, deliveries: 1 });
    expect(task?.ageMs).toBeGreaterThanOrEqual(0);
    expect((await queue.depth()).length).toBe(1); // running still counts
    await queue.acknowledge(task?.entryId ?? '');
    expect(await queue.depth()).toEqual({ length: 0, oldestAgeMs: 0 });
    expect(await queue.next('worker-a', 50)).toBeUndefined();
  });

  it('refuses tasks beyond maxLength, also when two API replicas enqueue at once', async () => {
    const first = await queueOf({ maxLength: 5 });
    const second = createTaskQueue(connect(), first.options);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 ? first : second).enqueue(`t${i}`)),
    );
    expect(results.filter((result) => result.queued)).toHaveLength(5);
    expect(results.find((result) => !result.queued)).toEqual({ queued: false, length: 5 });
    expect((await first.depth()).length).toBe(5);
  });

  it('hands the task of a worker that died to another once it has been idle for claimIdleMs', async () => {
    const queue = await queueOf();
    await queue.enqueue('orphan');
    const taken = await queue.next('worker-dies', 100);
    expect(taken?.deliveries).toBe(1);
    // worker-dies never acknowledges nor heartbeats; worker-b gets the same task after the idle time.
    let reclaimed: Awaited<ReturnType<TaskQueue['next']>>;
    const since = Date.now();
    while (!(reclaimed = await queue.next('worker-b', 50))) {
      if (Date.now() - since > 10_000) throw new Error('never reclaimed');
    }
    expect(Date.now() - since).toBeGreaterThanOrEqual(250);
    expect(reclaimed).toMatchObject({ taskId: 'orphan', entryId: taken?.entryId, deliveries: 2 });
  });

  it('counts deliveries, so a task that keeps killing workers can be given up', async () => {
    const queue = await queueOf({ claimIdleMs: 50 });
    await queue.enqueue('poison');
    const counts: number[] = [];
    for (let worker = 0; worker < 4; worker += 1) {
      let task: Awaited<ReturnType<TaskQueue['next']>>;
      while (!(task = await queue.next(`worker-${worker}`, 20))) {
        /* wait for the idle time */
      }
      counts.push(task.deliveries);
    }
    expect(counts).toEqual([1, 2, 3, 4]);
    expect(counts.filter((n) => n > queue.options.maxDeliveries)).toEqual([4]);
  });

  it('never takes a task from a worker that heartbeats, however long it runs', async () => {
    const queue = await queueOf({ claimIdleMs: 200 });
    await queue.enqueue('long');
    const running = await queue.next('worker-a', 100);
    const beats = setInterval(() => void queue.heartbeat('worker-a', running?.entryId ?? ''), 50);
    try {
      // Wait until the task is far older than the idle limit, then queue a second one:
      // worker-b must get the second (a claimable first would come before it).
      await sleepUntil(() => Date.now() - Number(running?.entryId.split('-')[0]) > 600);
      await queue.enqueue('next');
      const other = await queue.next('worker-b', 1000);
      expect(other?.taskId).toBe('next');
    } finally {
      clearInterval(beats);
    }
    const depth = await queue.depth();
    expect(depth.length).toBe(2);
    expect(depth.oldestAgeMs).toBeGreaterThan(600);
  });
});
