/**
 * The controller's work queue, after client-go's: a key is queued at most once however many
 * events name it; a key being processed is not processed twice at once (an event meanwhile marks
 * it dirty and it runs again after); failures come back with per-key exponential backoff, capped
 * by an overall token bucket so a storm of failures cannot flood the API.
 */

export type Handler = (key: string) => Promise<void>;

export interface WorkQueueOptions {
  handler: Handler;
  concurrency: number;
  /** First retry delay of a failing key; doubles per consecutive failure. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Overall retry rate (client-go's default bucket: 10 per second, burst 100). */
  retriesPerSecond?: number;
  retryBurst?: number;
  /** Told the number of keys ready to run whenever it changes. */
  onDepth?: (depth: number) => void;
  /** Told of a failure (the key is already scheduled again). */
  onError?: (key: string, err: unknown, retryInMs: number) => void;
}

export class WorkQueue {
  private readonly ready: string[] = [];
  private readonly queued = new Set<string>();
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  /** One pending delayed add per key, with its due time (client-go's waitingForQueue). */
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; dueAt: number }>();
  private readonly idleWaiters: Array<() => void> = [];
  private tokens: number;
  private tokensAt = Date.now();
  private stopped = false;

  constructor(private readonly options: WorkQueueOptions) {
    this.tokens = options.retryBurst ?? 100;
  }

  /** Queues a key now, unless it is already waiting. */
  add(key: string): void {
    if (this.stopped) return;
    if (this.running.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.ready.push(key);
    this.reportDepth();
    this.pump();
  }

  /**
   * Queues a key after a delay. A key has one pending delay, the earliest asked for, as in
   * client-go's delaying queue: a retry in 250 ms replaces a resync in 10 minutes, and a resync
   * asked for later does not push the retry back.
   */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    if (delayMs <= 0) return this.add(key);
    const dueAt = Date.now() + delayMs;
    const pending = this.timers.get(key);
    if (pending && pending.dueAt <= dueAt) return;
    clearTimeout(pending?.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.timers.set(key, { timer, dueAt });
  }

  /** Clears a key's failure count and pending retry (e.g. its object was deleted). */
  forget(key: string): void {
    this.failures.delete(key);
    clearTimeout(this.timers.get(key)?.timer);
    this.timers.delete(key);
  }

  get depth(): number {
    return this.ready.length;
  }

  /** Stops taking work and resolves when the handlers running now have finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.ready.length = 0;
    this.queued.clear();
    if (this.running.size > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (!this.stopped && this.running.size < this.options.concurrency) {
      // add() never queues a running key (it marks it dirty instead), so any key may start.
      const key = this.ready.shift();
      if (key === undefined) return;
      this.queued.delete(key);
      this.reportDepth();
      this.running.add(key);
      void this.process(key);
    }
  }

  private async process(key: string): Promise<void> {
    try {
      await this.options.handler(key);
      this.failures.delete(key);
    } catch (err) {
      const retryInMs = this.retryDelay(key);
      this.options.onError?.(key, err, retryInMs);
      this.dirty.delete(key); // the retry covers whatever happened meanwhile
      this.addAfter(key, retryInMs);
    } finally {
      this.running.delete(key);
      if (this.dirty.delete(key)) this.add(key);
      if (this.running.size === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
      this.pump();
    }
  }

  /** max(per-key exponential backoff, wait for an overall token), as client-go combines them. */
  private retryDelay(key: string): number {
    const failures = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, failures);
    const base = this.options.baseDelayMs ?? 250;
    const max = this.options.maxDelayMs ?? 300_000;
    const backoff = Math.min(max, base * 2 ** (failures - 1));
    return Math.max(backoff, this.reserveToken());
  }

  /** Takes one token from the bucket, returning how long until it is really available. */
  private reserveToken(): number {
    const rate = this.options.retriesPerSecond ?? 10;
    const burst = this.options.retryBurst ?? 100;
    const now = Date.now();
    this.tokens = Math.min(burst, this.tokens + ((now - this.tokensAt) / 1000) * rate);
    this.tokensAt = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / rate) * 1000);
  }

  private reportDepth(): void {
    this.options.onDepth?.(this.ready.length);
  }
}
