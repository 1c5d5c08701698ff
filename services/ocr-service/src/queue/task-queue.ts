/**
 * The durable task queue between the OCR API and its workers: a Redis stream read through a
 * consumer group. A task stays in the stream until a worker acknowledges it, so a worker that
 * dies (even SIGKILL) loses nothing: once its message has been idle for `claimIdleMs`, another
 * worker (or the restarted one) claims it (XAUTOCLAIM). A worker still busy keeps its message
 * fresh with a heartbeat, so a long task is never taken from a live worker. Delivery is at least
 * once: a task delivered more than `maxDeliveries` times is handed back as exhausted instead of
 * looping forever. The queue is bounded: `enqueue` refuses once `maxLength` tasks wait or run.
 */
import type { Redis } from 'ioredis';

export interface QueueOptions {
  /** Stream key; one per install (the operator names it after the install). */
  stream: string;
  group: string;
  /** Tasks waiting or running at most; `enqueue` answers `full` beyond. */
  maxLength: number;
  /** A message idle this long belongs to a worker presumed dead and may be claimed. */
  claimIdleMs: number;
  /** Deliveries of one task at most; one more makes it `exhausted`. */
  maxDeliveries: number;
}

export interface QueuedTask {
  /** The stream entry id (acknowledge with it). */
  entryId: string;
  taskId: string;
  /** What the worker needs to run the task (JSON written by the API; `''` when none). */
  job: string;
  /** Trace context of the request that queued the task (W3C `traceparent`), when traced. */
  traceparent: string | undefined;
  /** How many times the task has been delivered, this time included. */
  deliveries: number;
  /** Milliseconds since the task was queued. */
  ageMs: number;
}

export type EnqueueResult = { queued: true; entryId: string } | { queued: false; length: number };

// Check and add in one step: two API replicas must not both slip past the bound.
const ENQUEUE = `
local length = redis.call('XLEN', KEYS[1])
if length >= tonumber(ARGV[1]) then return {0, length} end
local id = redis.call('XADD', KEYS[1], '*', 'task_id', ARGV[2], 'traceparent', ARGV[3], 'job', ARGV[4])
return {1, id}
`;

export interface TaskQueue {
  /** Creates the stream and the group when missing (idempotent). */
  ensure(): Promise<void>;
  enqueue(taskId: string, message?: { job?: string; traceparent?: string }): Promise<EnqueueResult>;
  /**
   * The next task for `consumer`: first a task abandoned by a dead worker, else a new one,
   * waiting up to `blockMs`. Undefined when there is none.
   */
  next(consumer: string, blockMs: number): Promise<QueuedTask | undefined>;
  /** Resets the idle time of a task this consumer still works on (call well within claimIdleMs). */
  heartbeat(consumer: string, entryId: string): Promise<void>;
  /** Done with the task, whatever its outcome: removed from the stream. */
  acknowledge(entryId: string): Promise<void>;
  /** Tasks waiting or running, and the age of the oldest (for metrics). */
  depth(): Promise<{ length: number; oldestAgeMs: number }>;
  readonly options: QueueOptions;
}

type StreamEntry = [id: string, fields: string[]];

export function createTaskQueue(redis: Redis, options: QueueOptions): TaskQueue {
  const { stream, group } = options;

  async function deliveriesOf(entryId: string): Promise<number> {
    // XPENDING key group start end count → [[id, consumer, idle, deliveries]]
    const rows = (await redis.xpending(stream, group, entryId, entryId, 1)) as Array<
      [string, string, number, number]
    >;
    return rows[0]?.[3] ?? 1;
  }

  async function toTask(entry: StreamEntry): Promise<QueuedTask> {
    const [entryId, fields] = entry;
    const field = (name: string) => {
      const at = fields.indexOf(name);
      return at === -1 ? undefined : fields[at + 1];
    };
    const traceparent = field('traceparent');
    return {
      entryId,
      taskId: field('task_id') ?? '',
      job: field('job') ?? '',
      traceparent: traceparent ? traceparent : undefined,
      deliveries: await deliveriesOf(entryId),
      ageMs: Math.max(0, Date.now() - Number(entryId.split('-')[0])),
    };
  }

  return {
    options,
    async ensure() {
      try {
        await redis.xgroup('CREATE', stream, group, '0', 'MKSTREAM');
      } catch (err) {
        if (!String((err as Error).message).includes('BUSYGROUP')) throw err;
      }
    },
    async enqueue(taskId, { job = '', traceparent = '' } = {}) {
      const [queued, value] = (await redis.eval(
        ENQUEUE,
        1,
        stream,
        String(options.maxLength),
        taskId,
        traceparent,
        job,
      )) as [number, string | number];
      return queued === 1
        ? { queued: true, entryId: String(value) }
        : { queued: false, length: Number(value) };
    },
    async next(consumer, blockMs) {
      // XAUTOCLAIM key group consumer min-idle start COUNT 1 → [next-start, entries, deleted]
      const [, claimed] = (await redis.xautoclaim(
        stream,
        group,
        consumer,
        options.claimIdleMs,
        '0-0',
        'COUNT',
        1,
      )) as [string, StreamEntry[], string[]];
      const abandoned = claimed.find((entry) => entry[1] !== null);
      if (abandoned) return toTask(abandoned);
      const read = (await redis.xreadgroup(
        'GROUP',
        group,
        consumer,
        'COUNT',
        1,
        'BLOCK',
        blockMs,
        'STREAMS',
        stream,
        '>',
      )) as Array<[string, StreamEntry[]]> | null;
      const entry = read?.[0]?.[1][0];
      return entry ? toTask(entry) : undefined;
    },
    async heartbeat(consumer, entryId) {
      // Claiming one's own message with no minimum idle time resets its idle clock.
      await redis.xclaim(stream, group, consumer, 0, entryId, 'JUSTID');
    },
    async acknowledge(entryId) {
      await redis.multi().xack(stream, group, entryId).xdel(stream, entryId).exec();
    },
    async depth() {
      const length = await redis.xlen(stream);
      const oldest = (await redis.xrange(stream, '-', '+', 'COUNT', 1)) as StreamEntry[];
      const first = oldest[0]?.[0];
      return {
        length,
        oldestAgeMs: first ? Math.max(0, Date.now() - Number(first.split('-')[0])) : 0,
      };
    },
  };
}
