/**
 * PostgreSQL through node-postgres. Each session is one pg.Client; the caller's statement goes
 * over the extended protocol (one statement at most), read-only requests run inside
 * `BEGIN READ ONLY`, and between requests `DISCARD ALL` returns the session to its initial state
 * — unless the request provably changed nothing (a session-neutral statement that succeeded and
 * left no transaction open), when the round trip is skipped (read-only mode: only its ROLLBACK).
 */
import pg from 'pg';
import { isSessionNeutral } from '../../sql/session-neutral';
import { DriverSession, driverLogin, type SessionSpec } from '../driver-session';
import type { StatementOptions, StatementOutcome, TableColumnRow } from '../engine';
import { CappedStatement } from './capped-statement';
import { postgresFailure } from './failures';

/**
 * The SELECT takes the transaction's first snapshot: from then on PostgreSQL itself refuses
 * `SET TRANSACTION READ WRITE` ("must be set before any query"), whatever the statement does.
 */
const BEGIN_READ_ONLY = 'BEGIN TRANSACTION READ ONLY; SELECT 1';

/** Seed rule 1: tables of schema `public`, columns restricted to the same schema. */
const LIST_TABLES = `
  SELECT t.table_name, c.column_name, c.data_type
  FROM information_schema.tables t
  LEFT JOIN information_schema.columns c
    ON c.table_schema = t.table_schema AND c.table_name = t.table_name
  WHERE t.table_schema = 'public'
  ORDER BY t.table_name, c.ordinal_position`;

function clientConfig({ target, limits }: SessionSpec): pg.ClientConfig {
  return {
    ...driverLogin(target),
    // Our own deadline answers first; the driver's closes the socket just after, as a backstop.
    connectionTimeoutMillis: limits.connectTimeoutMs + 1000,
    // A startup parameter, so it is the session default DISCARD ALL returns to.
    statement_timeout: limits.statementTimeoutMs,
    // Dates are parsed from ISO output whatever the database's defaults are; in UTC,
    // timestamptz text needs no offset arithmetic.
    options: '-c DateStyle=ISO -c TimeZone=UTC',
    application_name: 'pelita-db-proxy',
    keepAlive: true,
  };
}

class PostgresSession extends DriverSession {
  private constructor(
    private readonly client: pg.Client,
    spec: SessionSpec,
  ) {
    super(
      {
        events: client,
        // Ending the client as well settles its state (and a connect still under way).
        destroy: () => {
          client.connection.stream.destroy();
          void client.end().catch(() => undefined);
        },
        end: () => client.end().catch(() => undefined),
      },
      postgresFailure,
      spec,
    );
  }

  static async open(spec: SessionSpec): Promise<PostgresSession> {
    const client = new pg.Client(clientConfig(spec));
    const session = new PostgresSession(client, spec);
    const connect = () => client.connect().then(() => undefined);
    await session.life.open(connect, spec.limits.connectTimeoutMs);
    return session;
  }

  async execute(sql: string, options: StatementOptions): Promise<StatementOutcome> {
    const neutral = this.spec.resetPolicy === 'when-changed' && isSessionNeutral(sql, 'postgresql');
    this.changed = true;
    return this.life.run(async () => {
      if (options.readOnly) await this.client.query(BEGIN_READ_ONLY);
      const outcome = await this.client.query(new CappedStatement(sql, options.maxRows)).done;
      // Read-only mode leaves its transaction open ('T'): the reset rolls it back, no more.
      const expected = options.readOnly ? 'T' : 'I';
      if (neutral && outcome.kind === 'rows' && this.transactionStatus() === expected) {
        this.changed = false;
      }
      return outcome;
    });
  }

  async listTables(): Promise<TableColumnRow[]> {
    this.changed = true;
    return this.life.run(async () => (await this.client.query<TableColumnRow>(LIST_TABLES)).rows);
  }

  /**
   * An open transaction (read-only mode, or a caller's BEGIN) is rolled back at every reset, also
   * after a request that provably changed nothing: nothing a request started outlives it, as
   * when the seed closed the connection. DISCARD ALL, which follows, cannot run inside one.
   */
  protected override async settle(): Promise<void> {
    if (this.transactionStatus() !== 'I') await this.client.query('ROLLBACK');
  }

  /**
   * DISCARD ALL drops temp tables, prepared statements, cursors, LISTENs and advisory locks, and
   * resets every setting (search_path, role, statement_timeout...) to the session default.
   */
  protected async resetSession(): Promise<void> {
    await this.client.query('DISCARD ALL');
    this.changed = false;
  }

  protected async stopStatement(): Promise<void> {
    const backend = (this.client as unknown as { processID?: number }).processID;
    if (backend !== undefined) await cancelBackend(this.spec, backend);
  }

  /** 'I' idle, 'T' in a transaction, 'E' in a failed transaction (ReadyForQuery status). */
  private transactionStatus(): string | null {
    const client = this.client as unknown as { getTransactionStatus?: () => string | null };
    return client.getTransactionStatus?.() ?? null;
  }
}

export const openPostgresSession = (spec: SessionSpec) => PostgresSession.open(spec);

/**
 * Cancels a statement that outlived the client-side deadline, from a second connection (a role
 * may cancel its own backends). Best effort: the server's statement_timeout is the first limit,
 * this only matters when the server stopped answering or the setting was bypassed.
 */
async function cancelBackend(spec: SessionSpec, backend: number) {
  const client = new pg.Client({
    ...clientConfig(spec),
    connectionTimeoutMillis: spec.limits.connectTimeoutMs,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT pg_cancel_backend($1)', [backend]);
  } catch {
    // The connection is dropped anyway; nothing else to do.
  } finally {
    await client.end().catch(() => undefined);
  }
}
