/**
 * What every engine's session has in common: the settings it was opened with, the lifecycle of
 * its connection, and the way a running statement is aborted (stopped on the server from a
 * second connection, then the socket dropped). Each engine adds its wire protocol: how a
 * statement runs, how tables are listed, how the session is reset, how a statement is stopped.
 */
import type { Target } from '../connection/params';
import type {
  Engine,
  EngineLimits,
  ResetKind,
  ResetPolicy,
  Session,
  StatementOptions,
  StatementOutcome,
  TableColumnRow,
} from './engine';
import { type DriverConnection, type FailureOf, SessionLifecycle } from './session-lifecycle';

/** What a session is opened with: where to, within which limits, reset how. */
export interface SessionSpec {
  target: Target;
  limits: EngineLimits;
  resetPolicy: ResetPolicy;
}

/** An engine whose sessions all share the service's limits and reset policy. */
export function createEngine(
  open: (spec: SessionSpec) => Promise<Session>,
  limits: EngineLimits,
  resetPolicy: ResetPolicy,
): Engine {
  return { connect: (target) => open({ target, limits, resetPolicy }) };
}

/**
 * The login every driver is given. It connects to the checked address, never to the header's
 * host name, which a second lookup could resolve elsewhere (connection/host-allowlist.ts).
 */
export function driverLogin({ params, address }: Target) {
  const { port, user, password, database } = params;
  return { host: address, port, user, password, database };
}

export abstract class DriverSession implements Session {
  protected readonly life: SessionLifecycle;
  /** Something since the last reset may have changed the session: the next reset must run. */
  protected changed = false;

  protected constructor(
    connection: DriverConnection,
    failureOf: FailureOf,
    protected readonly spec: SessionSpec,
  ) {
    this.life = new SessionLifecycle(connection, spec.target, failureOf);
  }

  abstract execute(sql: string, options: StatementOptions): Promise<StatementOutcome>;
  abstract listTables(): Promise<TableColumnRow[]>;

  /** Returns the session to its initial state, and only then clears `changed`. */
  protected abstract resetSession(): Promise<void>;

  /** What must run even when the reset is skipped (PostgreSQL rolls back an open transaction). */
  protected settle(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Stops the running statement on the server, best effort: dropping the socket alone does not
   * stop the server's work.
   */
  protected abstract stopStatement(): Promise<void>;

  get reusable(): boolean {
    return this.life.reusable;
  }

  async reset(): Promise<ResetKind> {
    if (!this.life.reusable) throw new Error('connection is broken');
    await this.settle();
    if (!this.changed) return 'skipped';
    await this.resetSession();
    return 'full';
  }

  abort(): void {
    void this.stopStatement();
    this.life.drop();
  }

  close(): Promise<void> {
    return this.life.close();
  }
}
