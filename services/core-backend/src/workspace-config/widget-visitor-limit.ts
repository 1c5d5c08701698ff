/**
 * How many questions one visitor address may ask one embedded widget per window. A widget is
 * public by nature and every question is a model call on the workspace's account, so a visitor
 * (or a script) must not ask without bound. A fixed window in Redis (`fixed-window.ts`).
 */
import type { Redis } from 'ioredis';
import { countInWindow } from './fixed-window';

export interface VisitorLimitOptions {
  limit: number;
  windowSeconds: number;
}

/** Undefined while the visitor may ask; else the seconds until their window ends. */
export type VisitorLimit = (widgetId: string, address: string) => Promise<number | undefined>;

export function createVisitorLimit(redis: Redis, options: VisitorLimitOptions): VisitorLimit {
  return async function takeQuestion(widgetId, address) {
    const { count, secondsLeft } = await countInWindow(
      redis,
      `core:widget-questions:${widgetId}:${address}`,
      options.windowSeconds,
    );
    return count > options.limit ? Math.max(secondsLeft, 1) : undefined;
  };
}
