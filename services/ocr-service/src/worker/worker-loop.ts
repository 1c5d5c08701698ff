/**
 * A worker: `concurrency` slots, each taking the next task from the queue (an abandoned one
 * first), keeping it fresh with a heartbeat while it runs, and acknowledging it when it ends.
 * A task delivered more than `maxDeliveries` times is failed instead of run (it keeps killing
 * its workers). `stop` takes no more tasks, cancels the running ones and leaves them
 * unacknowledged, so another worker (or this one, restarted) takes them over.
 */
import { errorMessage, type Logger } from '@pelita/kit';
import type { TaskQueue } from '../queue/task-queue';
import type { StatusStore } from '../status/status-store';
import { timestampWithoutZone } from '../status/task-record';

export interface WorkerLoopOptions {
  queue: TaskQueue;
  status: StatusStore;
  consumer: string;
  concurrency: number;
  logger: Logger;
  /** Runs one task; rejects only when cancelled through `signal`. */
  run: (taskId: string, queuedAgeMs: number, signal: AbortSignal) => Promise<void>;
  /** How long one wait for a task blocks (a stop is noticed within it). */
  blockMs?: number;
}

export interface WorkerLoop {
  start(): void;
  /** Tasks running now. */
  running(): number;
  stop(): Promise<void>;
}

export function createWorkerLoop(options: WorkerLoopOptions): WorkerLoop {
  const { queue, logger } = options;
  const abort = new AbortController();
  const slots: Array<Promise<void>> = [];
  let busy = 0;

  async function slot(index: number): Promise<void> {
    const consumer = `${options.consumer}-${index}`;
    while (!abort.signal.aborted) {
      let task;
      try {
        task = await queue.next(consumer, options.blockMs ?? 2000);
      } catch (err) {
        if (abort.signal.aborted) return;
        logger.error({ err: errorMessage(err) }, 'reading the task queue failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, 1000));
        continue;
      }
      if (!task || abort.signal.aborted) continue;
      busy += 1;
      const beat = setInterval(
        () => void queue.heartbeat(consumer, task.entryId).catch(() => undefined),
        Math.max(100, Math.floor(queue.options.claimIdleMs / 3)),
      );
      try {
        if (task.deliveries > queue.options.maxDeliveries) {
          await options.status.update(task.taskId, {
            status: 'failed',
            error: `the task was given up after ${task.deliveries - 1} deliveries (a worker died each time)`,
            error_code: 500,
            finished_at: timestampWithoutZone(),
          });
        } else {
          await options.run(task.taskId, task.ageMs, abort.signal);
        }
        await queue.acknowledge(task.entryId);
      } catch (err) {
        // Cancelled by stop: left unacknowledged for another worker.
        if (!abort.signal.aborted)
          logger.error({ taskId: task.taskId, err: errorMessage(err) }, 'task run failed');
      } finally {
        clearInterval(beat);
        busy -= 1;
      }
    }
  }

  return {
    start() {
      for (let index = 0; index < options.concurrency; index += 1) slots.push(slot(index));
    },
    running: () => busy,
    async stop() {
      abort.abort();
      await Promise.all(slots);
    },
  };
}
