/**
 * How many questions one visitor address may ask one embedded widget per window. A widget is
 * public by nature and every question is a model call on the workspace's account, so a visitor
 * (or a script) must not ask without bound. A fixed window in Redis, shared by the replicas.
 */
import type { Redis } from 'ioredis';

export interface VisitorLimitOptions {
  limit: number;
  windowSeconds: number;
}

/** Undefined while the visitor may ask; else the seconds until their window ends. */
export type VisitorLimit = (widgetId: string, address: string) => Promise<number | undefined>;

export function createVisitorLimit(redis: Redis, options: VisitorLimitOptions): VisitorLimit {
  return async function takeQuestion(widgetId, address) {
    const key = `core:widget-questions:${widgetId}:${address}`;
    // The window starts with the first question; NX keeps it from being pushed back.
    const replies = await redis
      .multi()
      .set(key, 0, 'EX', options.windowSeconds, 'NX')
      .incr(key)
      .ttl(key)
      .exec();
    const count = Number(replies?.[1]?.[1] ?? 0);
    const ttl = Number(replies?.[2]?.[1] ?? options.windowSeconds);
    return count > options.limit ? Math.max(ttl, 1) : undefined;
  };
}
