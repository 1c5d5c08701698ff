/**
 * Leader election on a coordination.k8s.io Lease, following client-go's leaderelection: the
 * holder renews every retry period; a standby takes over once it has seen the same record
 * unchanged for a whole lease duration (its own clock, so clock skew between nodes is harmless);
 * a leader that cannot renew within the renew deadline steps down; on shutdown it releases the
 * lease so a standby takes over at once instead of after the lease expires.
 *
 * A renew that hangs must not outlast the lease while this replica keeps reconciling: each request
 * is time-boxed, and the step-down at the renew deadline comes from its own timer, not from the
 * renew loop (which may be the thing that is stuck).
 */
import type { V1Lease } from '@kubernetes/client-node';
import type { Logger } from '@pelita/kit';
import { apiStatus, describeApiError, type KubeClient } from '../kube/client';

export interface LeaderElectionOptions {
  client: KubeClient;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** Time-out of one lease request; half the renew deadline unless given. */
  requestTimeoutMs?: number;
  logger: Logger;
  onStartedLeading: () => void;
  /** Leadership lost (not released by stop()): the caller must stop working at once. */
  onStoppedLeading: () => void;
}

/** Lease times are MicroTime: the API requires exactly six fractional digits. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class LeaderElector {
  private leading = false;
  /** Leadership was lost (not released): campaigning is over, the process must go. */
  private lost = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private renewDeadline: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  private observed: { record: string; at: number } | undefined;
  private lastRenewAt = 0;
  private loop: Promise<void> | undefined;

  constructor(private readonly options: LeaderElectionOptions) {}

  get isLeader(): boolean {
    return this.leading;
  }

  /**
   * For `/healthz`: a standby is healthy; a leader only while its last renewal is within the
   * renew deadline (checked here too, in case the event loop was too busy for the timer to run).
   */
  healthy(): boolean {
    if (this.lost) return false;
    if (!this.leading) return true;
    return Date.now() - this.lastRenewAt <= this.options.renewDeadlineMs;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops campaigning; a leader gives the lease up. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.renewDeadline);
    this.wake?.();
    // After a loss there is nothing to release, and the request under way may be the one hung.
    if (!this.lost) await this.loop;
    if (this.leading) {
      this.leading = false;
      await this.release().catch((err: unknown) =>
        this.options.logger.warn({ err: describeApiError(err) }, 'could not release the lease'),
      );
    }
  }

  private async run(): Promise<void> {
    const { retryPeriodMs, logger } = this.options;
    while (!this.stopped && !this.lost) {
      const now = Date.now();
      let held = false;
      try {
        held = await this.tryAcquireOrRenew(now);
      } catch (err) {
        logger.warn({ err: describeApiError(err) }, 'leader election request failed');
      }
      if (this.stopped || this.lost) return;
      if (held) {
        this.lastRenewAt = now;
        this.armRenewDeadline(now);
        if (!this.leading) {
          this.leading = true;
          logger.info({ lease: this.options.name }, 'became the leader');
          this.options.onStartedLeading();
        }
      }
      await this.sleep(retryPeriodMs);
    }
  }

  /** Steps down `renewDeadlineMs` after the renewal that started at `renewedAt`, unless renewed. */
  private armRenewDeadline(renewedAt: number): void {
    clearTimeout(this.renewDeadline);
    const remaining = renewedAt + this.options.renewDeadlineMs - Date.now();
    this.renewDeadline = setTimeout(() => this.stepDown(), Math.max(0, remaining));
    this.renewDeadline.unref();
  }

  private stepDown(): void {
    if (!this.leading || this.stopped) return;
    this.leading = false;
    this.lost = true;
    this.wake?.();
    this.options.logger.error(
      { lease: this.options.name },
      'lost the lease: could not renew in time',
    );
    this.options.onStoppedLeading();
  }

  /** A signal that aborts one lease request after the request time-out. */
  private deadline(): AbortSignal {
    const { requestTimeoutMs, renewDeadlineMs } = this.options;
    return AbortSignal.timeout(requestTimeoutMs ?? Math.max(1, Math.floor(renewDeadlineMs / 2)));
  }

  private async tryAcquireOrRenew(now: number): Promise<boolean> {
    const { client, namespace, name, identity, leaseDurationMs } = this.options;
    const leaseDurationSeconds = Math.ceil(leaseDurationMs / 1000);
    const existing = await client.readLease(namespace, name, this.deadline());
    if (!existing) {
      try {
        await client.createLease(
          namespace,
          {
            metadata: { name, namespace },
            spec: {
              holderIdentity: identity,
              leaseDurationSeconds,
              acquireTime: microTime(new Date(now)) as unknown as Date,
              renewTime: microTime(new Date(now)) as unknown as Date,
              leaseTransitions: 0,
            },
          },
          this.deadline(),
        );
        return true;
      } catch (err) {
        if (apiStatus(err) === 409) return false; // another replica created it first
        throw err;
      }
    }

    const spec = existing.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const record = JSON.stringify([holder, spec.renewTime, spec.leaseTransitions]);
    if (this.observed?.record !== record) this.observed = { record, at: now };
    const heldByOther = holder !== '' && holder !== identity;
    const duration = (spec.leaseDurationSeconds ?? leaseDurationSeconds) * 1000;
    if (heldByOther && this.observed.at + duration > now) return false;

    const lease: V1Lease = {
      ...existing,
      spec: {
        ...spec,
        holderIdentity: identity,
        leaseDurationSeconds,
        renewTime: microTime(new Date(now)) as unknown as Date,
        ...(holder === identity
          ? {}
          : {
              acquireTime: microTime(new Date(now)) as unknown as Date,
              leaseTransitions: (spec.leaseTransitions ?? 0) + 1,
            }),
      },
    };
    try {
      await client.replaceLease(namespace, lease, this.deadline());
      return true;
    } catch (err) {
      if (apiStatus(err) === 409) return false; // someone else wrote it since we read it
      throw err;
    }
  }

  /** Empties the holder and shortens the lease, as client-go's ReleaseOnCancel does. */
  private async release(): Promise<void> {
    const { client, namespace, name, identity } = this.options;
    const existing = await client.readLease(namespace, name, this.deadline());
    if (existing?.spec?.holderIdentity !== identity) return;
    await client.replaceLease(
      namespace,
      {
        ...existing,
        spec: {
          ...existing.spec,
          holderIdentity: '',
          leaseDurationSeconds: 1,
          renewTime: microTime(new Date()) as unknown as Date,
        },
      },
      this.deadline(),
    );
    this.options.logger.info({ lease: name }, 'released the lease');
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
    });
  }
}
