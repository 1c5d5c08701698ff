/**
 * A few connections to one target (one exact set of connection parameters), reused between
 * requests only after a reset that returns them to a fresh session. Bounded, idle-closed, and
 * retired as soon as it holds no connection, so credentials do not linger in memory.
 */
import { DatabaseFailure } from '../errors';

export interface PoolLifecycle<C> {
  open(): Promise<C>;
  /** False once the connection cannot serve another request (broken, left mid-result). */
  reusable(connection: C): boolean;
  /** Returns the connection to a fresh session; a rejection closes it instead. */
  reset(connection: C): Promise<void>;
  close(connection: C): Promise<void>;
}

export interface PoolLimits {
  max: number;
  idleMs: number;
  /** How long a request waits for a busy pool to free a connection. */
  acquireTimeoutMs: number;
}

export interface Lease<C> {
  readonly connection: C;
  /** Hands the connection back (reset in the background, or closed); call exactly once. */
  release(): void;
}

export interface PoolStats {
  label: string;
  idle: number;
  /** Opening, serving a request, or being reset. */
  busy: number;
  waiting: number;
}

interface Waiter<C> {
  resolve: (lease: Lease<C>) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout;
}

export class TargetPool<C> {
  private readonly idle: Array<{ connection: C; timer: NodeJS.Timeout }> = [];
  private readonly waiters: Array<Waiter<C>> = [];
  /** Every connection this pool holds, whatever its state. */
  private count = 0;
  private closing = false;
  private drained: (() => void) | undefined;
  private retired = false;

  constructor(
    readonly label: string,
    private readonly lifecycle: PoolLifecycle<C>,
    private readonly limits: PoolLimits,
    /** Called once when the pool holds nothing any more and has retired itself. */
    private readonly onRetired: () => void = () => undefined,
  ) {}

  /** False once closed or retired: the registry then builds a new pool for the target. */
  get usable(): boolean {
    return !this.closing && !this.retired;
  }

  async acquire(): Promise<Lease<C>> {
    if (!this.usable) throw new Error('acquire on a closed connection pool');
    for (let entry = this.idle.pop(); entry; entry = this.idle.pop()) {
      clearTimeout(entry.timer);
      if (this.lifecycle.reusable(entry.connection)) return this.lease(entry.connection);
      void this.discard(entry.connection);
    }
    if (this.count < this.limits.max) {
      this.count += 1;
      return this.lease(await this.openCounted());
    }
    return new Promise<Lease<C>>((resolve, reject) => {
      const waiter: Waiter<C> = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          reject(
            new DatabaseFailure(
              'pool_exhausted',
              `All ${this.limits.max} connections to this database are busy and none was freed ` +
                `within ${this.limits.acquireTimeoutMs} ms (POOL_MAX_PER_TARGET)`,
            ),
          );
        }, this.limits.acquireTimeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  stats(): PoolStats {
    return {
      label: this.label,
      idle: this.idle.length,
      busy: this.count - this.idle.length,
      waiting: this.waiters.length,
    };
  }

  /** Closes idle connections now and busy ones when released; resolves when none is left. */
  close(): Promise<void> {
    this.closing = true;
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(
        new DatabaseFailure(
          'pool_exhausted',
          'The connection pool for this database was closed (too many databases in use at once, POOL_MAX_TARGETS, or shutdown)',
        ),
      );
    }
    for (const entry of this.idle.splice(0)) {
      clearTimeout(entry.timer);
      void this.discard(entry.connection);
    }
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => (this.drained = resolve));
  }

  /** Opens a connection for a slot already counted; frees the slot when opening fails. */
  private async openCounted(): Promise<C> {
    try {
      return await this.lifecycle.open();
    } catch (err) {
      this.count -= 1;
      this.slotFreed();
      throw err;
    }
  }

  private lease(connection: C): Lease<C> {
    let released = false;
    return {
      connection,
      release: () => {
        if (released) return;
        released = true;
        this.giveBack(connection);
      },
    };
  }

  private giveBack(connection: C): void {
    if (this.closing || !this.lifecycle.reusable(connection)) {
      void this.discard(connection);
      return;
    }
    this.lifecycle.reset(connection).then(
      () => this.makeAvailable(connection),
      () => void this.discard(connection),
    );
  }

  private makeAvailable(connection: C): void {
    if (this.closing) {
      void this.discard(connection);
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) {
      clearTimeout(waiter.timer);
      waiter.resolve(this.lease(connection));
      return;
    }
    const timer = setTimeout(() => {
      const index = this.idle.findIndex((entry) => entry.connection === connection);
      if (index === -1) return;
      this.idle.splice(index, 1);
      void this.discard(connection);
    }, this.limits.idleMs);
    timer.unref();
    this.idle.push({ connection, timer });
  }

  private async discard(connection: C): Promise<void> {
    try {
      await this.lifecycle.close(connection);
    } catch {
      // Closing a broken connection may fail; it is gone either way.
    } finally {
      this.count -= 1;
      this.slotFreed();
    }
  }

  /** A slot freed: serve the next waiter with a new connection, or retire when empty. */
  private slotFreed(): void {
    const waiter = this.closing ? undefined : this.waiters.shift();
    if (waiter) {
      clearTimeout(waiter.timer);
      this.count += 1;
      this.openCounted().then(
        (connection) => waiter.resolve(this.lease(connection)),
        waiter.reject,
      );
      return;
    }
    if (this.count > 0 || this.waiters.length > 0) return;
    if (this.closing) {
      this.drained?.();
    } else if (!this.retired) {
      this.retired = true;
      this.onRetired();
    }
  }
}
