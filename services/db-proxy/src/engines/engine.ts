/** What the service needs from a database engine; one implementation per wire protocol. */
import type { Target } from '../connection/params';
import type { Row } from '../normalise';

export interface EngineLimits {
  connectTimeoutMs: number;
  statementTimeoutMs: number;
}

export interface StatementOptions {
  readOnly: boolean;
  maxRows: number;
}

export type StatementOutcome =
  { kind: 'rows'; rows: Row[]; truncated: boolean } | { kind: 'count'; rowCount: number };

/**
 * `always`: every request's session is reset before its connection is reused. `when-changed`:
 * the reset is skipped after a request that provably changed nothing (sql/session-neutral.ts).
 */
export type ResetPolicy = 'always' | 'when-changed';

/** What a reset did: ran, or was not needed. */
export type ResetKind = 'full' | 'skipped';

/** One row per column, or one row with null column for a table without columns. */
export interface TableColumnRow {
  table_name: string;
  column_name: string | null;
  data_type: string | null;
}

/** One open connection. Methods reject with a DatabaseFailure. */
export interface Session {
  /** Runs the caller's single statement; read-only mode wraps it in a read-only transaction. */
  execute(sql: string, options: StatementOptions): Promise<StatementOutcome>;
  /** Tables of the schema the seed names (PostgreSQL `public`, MariaDB/MySQL x-db-name). */
  listTables(): Promise<TableColumnRow[]>;
  /** False once the connection cannot serve another request. */
  readonly reusable: boolean;
  /**
   * Undoes whatever the requests since the last reset left in the session (transaction,
   * settings, temp tables, locks), or nothing when they provably left nothing.
   */
  reset(): Promise<ResetKind>;
  /** Stops the running statement from outside (the client-side deadline); the session is then unusable. */
  abort(): void;
  close(): Promise<void>;
}

export interface Engine {
  /** Opens an authenticated connection within the connect time-out. */
  connect(target: Target): Promise<Session>;
}
