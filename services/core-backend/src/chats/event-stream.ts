/**
 * Server-sent events to a browser: headers sent once, each event written and flushed as it
 * happens (no buffering proxy: `X-Accel-Buffering: no`).
 */
import type { Response } from 'express';

export interface EventStream {
  send(event: string, data: unknown): void;
  end(): void;
}

export function openEventStream(res: Response): EventStream {
  res.status(200);
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-cache, no-transform');
  res.setHeader('x-accel-buffering', 'no');
  res.flushHeaders();
  return {
    send(event, data) {
      if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    end() {
      if (!res.writableEnded) res.end();
    },
  };
}
