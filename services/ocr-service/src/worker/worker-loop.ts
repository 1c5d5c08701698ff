/**
 * A worker's slots over one durable queue (the OCR tasks', or the summaries'): each takes a
 * message from the queue, runs it and acknowledges it. Every slot
 * reads through a Redis connection of its own: a blocking XREADGROUP holds its connection, and
 * a shared one would hold up every status write and heartbeat behind it.
 *
 * While a task runs its message is kept fresh (heartbeat), so no other worker takes it; a task
 * delivered more than `maxDeliveries` times ends `failed`. Stopping: no new tasks, running ones
 * get `graceMs` to end, then they are abandoned unacknowledged — another worker (or this one,
 * restarted) claims them once idle. Nothing is lost either way.
 */
import { errorMessage, inTraceOf, type Logger } from '@pelita/kit';
import type { Redis } from 'ioredis';
import { createTaskQueue, type QueueOptions, type QueuedTask } from '../queue/task-queue';

export interface WorkerLoopOptions<Job> {
  /** Consumer names are `{consumer}-{slot}`: stable across restarts of a StatefulSet pod. */
  consumer: string;
  concurrency: number;
  queue: QueueOptions;
  /** A new Redis connection (one per slot). */
  connect: () => Redis;
  /** The message's job, or undefined when it cannot be read. */
  parse: (task: QueuedTask) => Job | undefined;
  run: (job: Job, task: QueuedTask, signal: AbortSignal) => Promise<unknown>;
  /** Records that a message could not be read, or was delivered too often; then it is dropped. */
  unreadable: (task: QueuedTask) => Promise<unknown>;
  exhausted: (task: QueuedTask) => Promise<unknown>;
  /** The span each run is traced in (a child of the producer's), with its attributes. */
  span: (job: Job, task: QueuedTask) => { name: string; attributes: Record<string, string> };
  logger: Logger;
  /** How long one read waits for a task before looking again (and at `stop`). */
  blockMs?: number;
}

export interface WorkerLoop {
  /** Tasks running now. */
  running(): number;
  /** Stops taking tasks; running ones get `graceMs`, then are abandoned to other workers. */
  stop(graceMs: number): Promise<void>;
}

const RETRY_AFTER_ERROR_MS = 1000;

export function startWorkerLoop<Job>(options: WorkerLoopOptions<Job>): WorkerLoop {
  const { logger } = options;
  const blockMs = options.blockMs ?? 2000;
  const heartbeatMs = Math.max(100, Math.floor(options.queue.claimIdleMs / 3));
  const abort = new AbortController();
  const connections: Redis[] = [];
  let stopping = false;
  let active = 0;

  async function handle(queue: ReturnType<typeof createTaskQueue>, slot: string, task: QueuedTask) {
    const log = logger.child({ taskId: task.taskId, deliveries: task.deliveries });
    const job = options.parse(task);
    if (job === undefined) {
      log.error('a queued message carries no readable job; it is dropped');
      await options.unreadable(task);
      await queue.acknowledge(task.entryId);
      return;
    }
    if (task.deliveries > options.queue.maxDeliveries) {
      log.error('delivered too often; it is failed');
      await options.exhausted(task);
      await queue.acknowledge(task.entryId);
      return;
    }
    const heartbeat = setInterval(() => {
      queue
        .heartbeat(slot, task.entryId)
        .catch((err: unknown) => log.warn({ err: errorMessage(err) }, 'heartbeat failed'));
    }, heartbeatMs);
    active += 1;
    try {
      const traced = options.span(job, task);
      await inTraceOf(task.traceparent, traced.name, async (span) => {
        for (const [name, value] of Object.entries(traced.attributes))
          span.setAttribute(name, value);
        await options.run(job, task, abort.signal);
      });
      await queue.acknowledge(task.entryId);
    } catch (err) {
      // Unacknowledged: the task goes to the next worker once its message is idle.
      if (abort.signal.aborted) log.info('abandoned by a stopping worker; another will take it');
      else log.error({ err: errorMessage(err) }, 'task interrupted; it will be delivered again');
    } finally {
      clearInterval(heartbeat);
      active -= 1;
    }
  }

  async function slotLoop(index: number) {
    const redis = options.connect();
    connections.push(redis);
    const queue = createTaskQueue(redis, options.queue);
    const slot = `${options.consumer}-${index}`;
    while (!stopping) {
      let task: QueuedTask | undefined;
      try {
        task = await queue.next(slot, blockMs);
      } catch (err) {
        if (stopping) break;
        logger.warn({ slot, err: errorMessage(err) }, 'reading the queue failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_ERROR_MS));
        continue;
      }
      // Read just as the worker stops: left pending, claimed by another worker once idle.
      if (!task || stopping) continue;
      await handle(queue, slot, task).catch((err: unknown) =>
        logger.error({ slot, err: errorMessage(err) }, 'a task could not be settled'),
      );
    }
  }

  const slots = Array.from({ length: options.concurrency }, (_, index) => slotLoop(index));

  return {
    running: () => active,
    async stop(graceMs) {
      stopping = true;
      const ended = Promise.all(slots);
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      // Idle slots end within one read (`blockMs`); running tasks get the grace time.
      await Promise.race([ended, graceOver]);
      abort.abort();
      await ended;
      clearTimeout(timer);
      for (const redis of connections) redis.disconnect();
    },
  };
}
