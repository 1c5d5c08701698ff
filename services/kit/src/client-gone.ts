/** A signal for work done on behalf of one request: aborted when its client leaves early. */
import { setMaxListeners } from 'node:events';
import type { Response } from 'express';

/**
 * Aborted when the client disconnects before the response is complete. Every piece of work
 * waiting on it (model calls queued for a slot, a conversion) listens, so it has no listener limit.
 */
export function clientGoneSignal(res: Response): AbortSignal {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new Error('the client closed the connection'));
  });
  return controller.signal;
}
