/**
 * The life of one session's connection, the same for every engine: opened within the connect
 * time-out (one that opens too late is closed), every driver failure turned into a
 * DatabaseFailure that names no password, and a connection that errored, ended or was dropped
 * never reused. The engines add what their wire protocol does differently.
 */
import type { EventEmitter } from 'node:events';
import type { Target } from '../connection/params';
import { withDeadline } from '../deadline';
import { DatabaseFailure } from '../errors';

/** What the lifecycle needs of a driver's connection. */
export interface DriverConnection {
  /** The driver's connection object, which emits 'error' and 'end'. */
  events: EventEmitter;
  /** Destroys the socket at once (time-out, abort, a result cut short). */
  destroy(): void;
  /** Closes politely; only called on a connection that is not broken. */
  end(): Promise<void>;
}

/** The engine's mapping of a driver error; the password is removed from anything it quotes. */
export type FailureOf = (err: unknown, password: string) => DatabaseFailure;

export class SessionLifecycle {
  private broken = false;

  constructor(
    private readonly connection: DriverConnection,
    private readonly target: Target,
    private readonly failureOf: FailureOf,
  ) {
    // A connection that dies while idle emits 'error'; without a listener the process would crash.
    connection.events.on('error', () => this.markBroken());
    connection.events.on('end', () => this.markBroken());
  }

  get reusable(): boolean {
    return !this.broken;
  }

  markBroken(): void {
    this.broken = true;
  }

  /** Connects within `connectTimeoutMs`, then `prepare`s the session (first settings). */
  async open(
    connect: () => Promise<void>,
    connectTimeoutMs: number,
    prepare: () => Promise<void> = () => Promise.resolve(),
  ): Promise<void> {
    const { host, port } = this.target.params;
    try {
      await withDeadline(
        connect(),
        connectTimeoutMs,
        () => {
          this.drop();
          return new DatabaseFailure(
            'connect_timeout',
            `No connection to ${host}:${port} within ${connectTimeoutMs} ms`,
          );
        },
        () => void this.close(),
      );
      await prepare();
    } catch (err) {
      this.drop();
      throw this.failureOf(err, this.target.params.password);
    }
  }

  /** Runs a request's work on the connection, its failure mapped. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw this.failureOf(err, this.target.params.password);
    }
  }

  drop(): void {
    this.broken = true;
    this.connection.destroy();
  }

  async close(): Promise<void> {
    if (this.broken) this.drop();
    else await this.connection.end();
  }
}
