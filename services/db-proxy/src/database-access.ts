/**
 * The service's domain: check a connection, list tables, run a statement, for the connection
 * parameters of one request. It decides read-only mode, authorises the host, shares pooled
 * sessions between identical targets, applies the time limits and row cap, and turns every
 * database failure into the HTTP error the caller receives.
 */
import type { Logger } from '@pelita/kit';
import { authoriseHost, type HostAllowlist } from './connection/host-allowlist';
import { engineOf, poolKey, type ConnectionParams, type EngineName } from './connection/params';
import type { PoolRegistry } from './connection/pool-registry';
import { TargetPool } from './connection/target-pool';
import { withDeadline } from './deadline';
import type { Engine, Session, TableColumnRow } from './engines/engine';
import { DatabaseFailure, toConnectionCheckError, toHttpError } from './errors';
import type { DbProxyMetrics } from './metrics';
import { normaliseRows, type Row } from './normalise';
import type { SessionResetCounter } from './session-metrics';
import { assertReadOnlyStatement } from './sql/read-only';

export interface DatabaseAccessOptions {
  engines: Record<EngineName, Engine>;
  pools: PoolRegistry<Session>;
  allowlist: HostAllowlist | null;
  metrics: DbProxyMetrics;
  sessionResets: SessionResetCounter;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  maxRows: number;
  /** READ_ONLY: every statement runs read-only, whatever the request says. */
  readOnly: boolean;
  poolMaxPerTarget: number;
  poolIdleMs: number;
}

export interface ExecuteResult {
  result: Row[];
  /** Statements without rows (DML, DDL): rows affected, 0 when the statement counts none. */
  rowCount?: number;
  /** Present (true) when the rows were cut at MAX_ROWS. */
  truncated?: true;
}

export type TableListing = Record<string, Array<{ column_name: string; data_type: string }>>;

/**
 * The server's statement time-out answers first; this client-side limit, a little later, covers
 * a server that stopped answering or a statement that escaped the server's limit.
 */
const CLIENT_DEADLINE_GRACE_MS = 2000;

export class DatabaseAccess {
  constructor(private readonly options: DatabaseAccessOptions) {}

  /** Opens a fresh connection (never a pooled one: the point is to prove one can be opened). */
  async checkConnection(params: ConnectionParams): Promise<void> {
    try {
      const address = await authoriseHost(this.options.allowlist, params.host);
      const session = await this.engineFor(params).connect({ params, address });
      await session.close();
    } catch (err) {
      throw failureOf(err, toConnectionCheckError);
    }
  }

  async listTables(params: ConnectionParams): Promise<TableListing> {
    try {
      const rows = await this.withSession(params, (session) => session.listTables());
      return groupColumns(rows);
    } catch (err) {
      throw failureOf(err, toHttpError);
    }
  }

  /** `readOnly` is the request's wish; the READ_ONLY setting wins when it is stricter. */
  async execute(
    params: ConnectionParams,
    sql: string,
    request: { readOnly: boolean },
    log?: Logger,
  ): Promise<ExecuteResult> {
    const readOnly = this.options.readOnly || request.readOnly;
    const { maxRows } = this.options;
    log?.debug({ engine: params.mode, readOnly, query: sql }, 'executing statement');
    try {
      if (readOnly) assertReadOnlyStatement(sql, engineOf(params.mode));
      const outcome = await this.withSession(params, (session) =>
        session.execute(sql, { readOnly, maxRows }),
      );
      this.options.metrics.statements.inc({ engine: params.mode, outcome: 'ok' });
      if (outcome.kind === 'count') return { result: [], rowCount: outcome.rowCount };
      const result = normaliseRows(outcome.rows);
      return outcome.truncated ? { result, truncated: true } : { result };
    } catch (err) {
      if (err instanceof DatabaseFailure) {
        this.options.metrics.statements.inc({ engine: params.mode, outcome: err.kind });
        // The database's message may quote the statement: only at debug level.
        log?.warn(
          { engine: params.mode, code: err.kind, sqlState: err.sqlState },
          'statement failed',
        );
        log?.debug({ engine: params.mode, error: err.message }, 'statement failure message');
      }
      throw failureOf(err, toHttpError);
    }
  }

  close(): Promise<void> {
    return this.options.pools.closeAll();
  }

  private engineFor(params: ConnectionParams): Engine {
    return this.options.engines[engineOf(params.mode)];
  }

  /** Runs `work` on a pooled session of the target, within the client-side deadline. */
  private async withSession<T>(
    params: ConnectionParams,
    work: (session: Session) => Promise<T>,
  ): Promise<T> {
    const lease = await this.options.pools.acquire(poolKey(params), (onRetired) =>
      this.createPool(params, onRetired),
    );
    const session = lease.connection;
    const deadlineMs = this.options.statementTimeoutMs + CLIENT_DEADLINE_GRACE_MS;
    try {
      return await withDeadline(work(session), deadlineMs, () => {
        session.abort();
        return new DatabaseFailure(
          'statement_timeout',
          `The statement did not finish within ${this.options.statementTimeoutMs} ms`,
        );
      });
    } finally {
      lease.release();
    }
  }

  /** A pool is created once per target, after the host is authorised (the check is cached with it). */
  private async createPool(
    params: ConnectionParams,
    onRetired: () => void,
  ): Promise<TargetPool<Session>> {
    const address = await authoriseHost(this.options.allowlist, params.host);
    const engine = this.engineFor(params);
    const target = { params, address };
    return new TargetPool<Session>(
      params.mode,
      {
        open: () => engine.connect(target),
        reusable: (session) => session.reusable,
        reset: async (session) => {
          const kind = await session.reset();
          this.options.sessionResets.inc({ engine: params.mode, reset: kind });
        },
        close: (session) => session.close(),
      },
      {
        max: this.options.poolMaxPerTarget,
        idleMs: this.options.poolIdleMs,
        acquireTimeoutMs: this.options.connectTimeoutMs,
      },
      onRetired,
    );
  }
}

function failureOf(err: unknown, toHttp: (failure: DatabaseFailure) => Error): unknown {
  return err instanceof DatabaseFailure ? toHttp(err) : err;
}

/** Rows of (table, column, type) → `{ table: [{ column_name, data_type }] }`, in database order. */
function groupColumns(rows: TableColumnRow[]): TableListing {
  // A Map, then own properties: a table may well be called `__proto__`.
  const tables = new Map<string, TableListing[string]>();
  for (const row of rows) {
    const columns = tables.get(row.table_name) ?? [];
    tables.set(row.table_name, columns);
    if (row.column_name !== null) {
      columns.push({ column_name: row.column_name, data_type: row.data_type ?? '' });
    }
  }
  return Object.fromEntries(tables);
}
