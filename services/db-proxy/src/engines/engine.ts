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
  /** Undoes whatever the last request left in the session (transaction, settings, temp tables). */
  reset(): Promise<void>;
  /** Stops the running statement from outside (the client-side deadline); the session is then unusable. */
  abort(): void;
  close(): Promise<void>;
}

export interface Engine {
  /** Opens an authenticated connection within the connect time-out. */
  connect(target: Target): Promise<Session>;
}
