/** Express-side plumbing of the proxy route: the caller-gone signal and writing the target's answer. */
import type { Response } from 'express';
import type { UpstreamResponse } from '../forward/messages';
import { passThroughHeaders } from '../forward/response-headers';

/** Aborts when the caller's connection closes before the answer was sent. */
export function callerGoneSignal(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** Rule 7: the target's status, end-to-end headers and body bytes, unchanged. */
export function sendUpstreamAnswer(res: Response, answer: UpstreamResponse): void {
  res.status(answer.status);
  for (const [name, values] of passThroughHeaders(answer.headers)) res.setHeader(name, values);
  res.end(answer.body);
}
