/**
 * The target pools, one per pool key, at most `maxTargets` of them: the least recently used is
 * closed when a new one would exceed the bound. A pool that retires (holds no connection any
 * more) leaves the registry at once.
 */
import type { Lease, PoolStats, TargetPool } from './target-pool';

/** Builds the pool of a target; `onRetired` must be passed to the pool. Rejects to refuse it. */
export type CreatePool<C> = (onRetired: () => void) => Promise<TargetPool<C>>;

interface Entry<C> {
  pool: Promise<TargetPool<C>>;
  /** The pool once built. */
  built?: TargetPool<C>;
}

export class PoolRegistry<C> {
  /** Map order is recency order: a used entry is moved to the end. */
  private readonly entries = new Map<string, Entry<C>>();
  /** Pools still holding connections, evicted ones included, for the gauge and shutdown. */
  private readonly live = new Set<TargetPool<C>>();

  constructor(private readonly maxTargets: number) {}

  async acquire(key: string, create: CreatePool<C>): Promise<Lease<C>> {
    for (;;) {
      const pool = await this.poolFor(key, create);
      // Checked and acquired without an await in between, so the pool cannot retire meanwhile.
      if (pool.usable) return pool.acquire();
      this.forget(key, pool);
    }
  }

  stats(): PoolStats[] {
    return [...this.live].map((pool) => pool.stats());
  }

  get targets(): number {
    return this.entries.size;
  }

  async closeAll(): Promise<void> {
    this.entries.clear();
    await Promise.all([...this.live].map((pool) => pool.close()));
    this.live.clear();
  }

  private poolFor(key: string, create: CreatePool<C>): Promise<TargetPool<C>> {
    const existing = this.entries.get(key);
    if (existing) {
      this.entries.delete(key);
      this.entries.set(key, existing);
      return existing.pool;
    }
    const entry: Entry<C> = {
      pool: create(() => {
        if (entry.built) this.forget(key, entry.built);
      }).then((pool) => {
        entry.built = pool;
        this.live.add(pool);
        return pool;
      }),
    };
    // A refused target (host not allowed, name not resolving) is not remembered.
    entry.pool.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    this.entries.set(key, entry);
    this.evictBeyondBound();
    return entry.pool;
  }

  private forget(key: string, pool: TargetPool<C>): void {
    this.live.delete(pool);
    if (this.entries.get(key)?.built === pool) this.entries.delete(key);
  }

  private evictBeyondBound(): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.maxTargets) return;
      this.entries.delete(key);
      void entry.pool.then(
        (pool) => pool.close().then(() => this.live.delete(pool)),
        () => undefined,
      );
    }
  }
}
