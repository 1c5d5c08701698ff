/** Express-side plumbing of the proxy route: the caller-gone signal and writing the target's answer. */
import type { Response } from 'express';
import type { CallerGone } from '../forward/deadline';
import type { UpstreamResponse } from '../forward/messages';
import { passThroughHeaders } from '../forward/response-headers';

/** Calls the listener when the caller's connection closes before the answer was sent. */
export function callerGone(res: Response): CallerGone {
  return (listener) => {
    if (res.destroyed && !res.writableFinished) return listener();
    res.once('close', () => {
      if (!res.writableFinished) listener();
    });
  };
}

/** Rule 7: the target's status, end-to-end headers and body bytes, unchanged. */
export function sendUpstreamAnswer(res: Response, answer: UpstreamResponse): void {
  res.status(answer.status);
  for (const [name, values] of passThroughHeaders(answer.headers)) res.setHeader(name, values);
  res.end(answer.body);
}
