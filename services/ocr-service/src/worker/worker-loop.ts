/**
 * A worker's slots: each takes a task from the queue, runs it and acknowledges it. Every slot
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
import type { StatusStore } from '../status/status-store';
import { TaskJobSchema, type TaskJob } from '../tasks/task-job';
import { failExhausted } from './run-task';

export interface WorkerLoopOptions {
  /** Consumer names are `{consumer}-{slot}`: stable across restarts of a StatefulSet pod. */
  consumer: string;
  concurrency: number;
  queue: QueueOptions;
  /** A new Redis connection (one per slot). */
  connect: () => Redis;
  statuses: StatusStore;
  run: (job: TaskJob, signal: AbortSignal) => Promise<unknown>;
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

export function startWorkerLoop(options: WorkerLoopOptions): WorkerLoop {
  const { logger, statuses } = options;
  const blockMs = options.blockMs ?? 2000;
  const heartbeatMs = Math.max(100, Math.floor(options.queue.claimIdleMs / 3));
  const abort = new AbortController();
  const connections: Redis[] = [];
  let stopping = false;
  let active = 0;

  async function handle(queue: ReturnType<typeof createTaskQueue>, slot: string, task: QueuedTask) {
    const log = logger.child({ taskId: task.taskId, deliveries: task.deliveries });
    const parsed = TaskJobSchema.safeParse(safeJson(task.job));
    if (!parsed.success) {
      log.error('a queued task carries no readable job; it is dropped');
      await statuses.update(task.taskId, {
        status: 'failed',
        error: 'the queued task could not be read',
        error_code: 500,
      });
      await queue.acknowledge(task.entryId);
      return;
    }
    if (task.deliveries > options.queue.maxDeliveries) {
      log.error('delivered too often; the task is failed');
      await failExhausted(task.taskId, task.deliveries, statuses);
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
      await inTraceOf(task.traceparent, 'ocr task', async (span) => {
        span.setAttribute('ocr.task_id', task.taskId);
        span.setAttribute('ocr.processing', parsed.data.processing);
        await options.run(parsed.data, abort.signal);
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

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
