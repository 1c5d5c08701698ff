/**
 * MariaDB and MySQL through mysql2 (modes `mariadb` and `mysql`). Multiple statements are off,
 * so the server refuses `COMMIT; DELETE ...`; read-only requests run in a read-only session
 * without autocommit; between requests COM_RESET_CONNECTION returns the session to its initial
 * state and the session settings are applied again — unless the request provably changed nothing
 * (a session-neutral statement that succeeded with no warning, no open transaction and no
 * session-state change reported by the server), when the two round trips are skipped.
 */
import mysql from 'mysql2';
import type { Row } from '../../normalise';
import { statementHead } from '../../sql/leading-keyword';
import { isSessionNeutral, readsPreviousStatement } from '../../sql/session-neutral';
import { DriverSession, driverLogin, type SessionSpec } from '../driver-session';
import type { StatementOptions, StatementOutcome, TableColumnRow } from '../engine';
import { mysqlFailure } from './failures';
import { VALUE_OPTIONS } from './types';

type Flavour = 'mariadb' | 'mysql';

/** Seed rule 1: tables of the schema named by x-db-name, columns restricted to that schema. */
const LIST_TABLES = `
  SELECT t.TABLE_NAME AS table_name, c.COLUMN_NAME AS column_name, c.DATA_TYPE AS data_type
  FROM information_schema.TABLES t
  LEFT JOIN information_schema.COLUMNS c
    ON c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME
  WHERE t.TABLE_SCHEMA = ?
  ORDER BY t.TABLE_NAME, c.ORDINAL_POSITION`;

/**
 * Settings every session starts with, again after each reset. The statement time-out is the
 * server's own: MariaDB's max_statement_time covers every statement, MySQL's
 * max_execution_time only SELECT (the client-side deadline covers the rest).
 */
function sessionSettings(flavour: Flavour, statementTimeoutMs: number, tracks: boolean): string {
  const timeout =
    flavour === 'mariadb'
      ? `max_statement_time = ${(statementTimeoutMs / 1000).toFixed(3)}`
      : `max_execution_time = ${statementTimeoutMs}`;
  // session_track_state_change: the server flags a changed session (variables, temporary
  // tables, prepared statements, schema) in the status of the statement's last packet.
  const tracking = tracks ? ', SESSION session_track_state_change = ON' : '';
  return `SET SESSION time_zone = '+00:00', SESSION ${timeout}${tracking}`;
}

/** The server does not know the variable (MySQL before 5.7, MariaDB before 10.2). */
const ER_UNKNOWN_SYSTEM_VARIABLE = 1193;

/**
 * A read-only session without autocommit: the statement opens a transaction that is read-only,
 * and even DDL, which MariaDB/MySQL commit implicitly, is refused. COM_RESET_CONNECTION rolls it
 * back and restores both settings. (MySQL 8 renamed tx_read_only to transaction_read_only.)
 */
function readOnlySettings(flavour: Flavour): string {
  const variable = flavour === 'mariadb' ? 'tx_read_only' : 'transaction_read_only';
  return `SET SESSION ${variable} = 1, SESSION autocommit = 0`;
}

function connectionOptions({ target, limits }: SessionSpec): mysql.ConnectionOptions {
  return {
    ...driverLogin(target),
    // Our own deadline answers first; the driver's closes the socket just after, as a backstop.
    connectTimeout: limits.connectTimeoutMs + 1000,
    multipleStatements: false,
    // LOAD DATA LOCAL INFILE would let the server read files of this host.
    flags: ['-LOCAL_FILES', '-MULTI_STATEMENTS'],
    charset: 'UTF8MB4_UNICODE_CI',
    ...VALUE_OPTIONS,
  };
}

interface ResultHeader {
  affectedRows: number;
  serverStatus?: number;
  warningStatus?: number;
  stateChanges?: { schema?: string | null };
}

/** Server status flags (protocol): a transaction is open; the session state changed. */
const SERVER_STATUS_IN_TRANS = 0x0001;
const SERVER_SESSION_STATE_CHANGED = 0x4000;

interface StatementEnd {
  status: number;
  warnings: number;
}

interface MysqlPacket {
  isEOF(): boolean;
  eofStatusFlags(): number;
  eofWarningCount(): number;
}

class MysqlSession extends DriverSession {
  private flavour: Flavour = 'mysql';
  /** A request ran since the last reset (its FOUND_ROWS and the like are still readable). */
  private used = false;
  /** Status and warning count of the last EOF packet (the end of a result set). */
  private lastEnd: StatementEnd | undefined;
  /** The server reports session-state changes (session_track_state_change is on). */
  private tracksState = true;

  private constructor(
    private readonly connection: mysql.Connection,
    spec: SessionSpec,
  ) {
    super(
      {
        events: connection,
        destroy: () => connection.destroy(),
        end: () => new Promise<void>((resolve) => connection.end(() => resolve())),
      },
      mysqlFailure,
      spec,
    );
    // mysql2 reads the EOF packet's status and warning count but keeps neither.
    const internals = connection as unknown as { handlePacket(packet: MysqlPacket | null): void };
    const handlePacket = internals.handlePacket.bind(connection);
    internals.handlePacket = (packet) => {
      if (packet?.isEOF()) {
        this.lastEnd = { status: packet.eofStatusFlags(), warnings: packet.eofWarningCount() };
      }
      handlePacket(packet);
    };
  }

  static async open(spec: SessionSpec): Promise<MysqlSession> {
    const connection = mysql.createConnection(connectionOptions(spec));
    const session = new MysqlSession(connection, spec);
    const connect = () =>
      new Promise<void>((resolve, reject) =>
        connection.connect((err) => (err ? reject(err) : resolve())),
      );
    await session.life.open(connect, spec.limits.connectTimeoutMs, async () => {
      const [version] = await session.query<Array<{ version: string }>>(
        'SELECT VERSION() AS version',
      );
      session.flavour = /mariadb/i.test(version?.version ?? '') ? 'mariadb' : 'mysql';
      await session.applySettings().catch(async (err: { errno?: number }) => {
        if (err.errno !== ER_UNKNOWN_SYSTEM_VARIABLE) throw err;
        // Without state tracking no reset is ever skipped on this server.
        session.tracksState = false;
        await session.applySettings();
      });
    });
    return session;
  }

  async execute(sql: string, options: StatementOptions): Promise<StatementOutcome> {
    // COM_RESET_CONNECTION keeps the default database: a session that changed it is not reused.
    if (statementHead(sql, 'mysql').keyword === 'USE') this.life.markBroken();
    const neutral =
      this.spec.resetPolicy === 'when-changed' &&
      !options.readOnly &&
      isSessionNeutral(sql, 'mysql');
    return this.life.run(async () => {
      // What describes the statement before (its row count, warnings) must not be read: a
      // reset first, and an empty SELECT, as COM_RESET_CONNECTION keeps FOUND_ROWS().
      if (this.used && readsPreviousStatement(sql)) {
        await this.resetSession();
        await this.query('SELECT 1 FROM DUAL WHERE 0');
      }
      this.used = true;
      this.changed = true;
      if (options.readOnly) await this.query(readOnlySettings(this.flavour));
      this.lastEnd = undefined;
      const outcome = await this.runCapped(sql, options.maxRows);
      if (neutral && outcome.kind === 'rows' && this.leftUnchanged()) this.changed = false;
      return outcome;
    });
  }

  private applySettings(): Promise<unknown> {
    return this.query(
      sessionSettings(this.flavour, this.spec.limits.statementTimeoutMs, this.tracksState),
    );
  }

  /** The statement's last packet: no transaction open, no state change, no warning. */
  private leftUnchanged(): boolean {
    const end = this.lastEnd;
    if (!end || !this.tracksState) return false;
    return (
      (end.status & (SERVER_STATUS_IN_TRANS | SERVER_SESSION_STATE_CHANGED)) === 0 &&
      end.warnings === 0
    );
  }

  async listTables(): Promise<TableColumnRow[]> {
    this.used = true;
    this.changed = true;
    return this.life.run(() =>
      this.query<TableColumnRow[]>(LIST_TABLES, [this.spec.target.params.database]),
    );
  }

  /**
   * COM_RESET_CONNECTION rolls back, drops temporary tables, releases locks (GET_LOCK, LOCK
   * TABLES), clears user variables and prepared statements, and resets session variables.
   */
  protected async resetSession(): Promise<void> {
    // Until both steps succeed the session counts as changed: a reset that failed halfway
    // (settings not applied again) must not be skipped later.
    this.changed = true;
    await new Promise<void>((resolve, reject) =>
      this.connection.reset((err) => (err ? reject(err) : resolve())),
    );
    await this.applySettings();
    this.changed = false;
    this.used = false;
  }

  protected stopStatement(): Promise<void> {
    return killQuery(this.spec, this.connection.threadId);
  }

  private query<T>(sql: string, values?: unknown[]): Promise<T> {
    return new Promise((resolve, reject) =>
      this.connection.query(sql, values, (err, result) =>
        err ? reject(err) : resolve(result as T),
      ),
    );
  }

  /**
   * Streams the result and keeps the first `maxRows` rows of the first result set (a CALL may
   * return several). Past the cap the rest is not read: the connection is dropped instead, which
   * stops the server from sending it.
   */
  private runCapped(sql: string, maxRows: number): Promise<StatementOutcome> {
    return new Promise((resolve, reject) => {
      let rows: Row[] | undefined;
      let resultSets = 0;
      let rowCount = 0;
      let settled = false;
      // mysql2 announces an OK packet (a statement without rows) with 'fields' undefined.
      let nextIsHeader = false;
      const finish = (outcome: StatementOutcome) => {
        if (settled) return;
        settled = true;
        resolve(outcome);
      };
      const query = this.connection.query(sql);
      query.on('fields', (fields: unknown) => {
        nextIsHeader = fields === undefined;
        if (nextIsHeader) return;
        resultSets += 1;
        rows ??= [];
      });
      query.on('result', (result: unknown) => {
        if (nextIsHeader) {
          nextIsHeader = false;
          const header = result as ResultHeader;
          rowCount += header.affectedRows;
          // Session tracking reports a changed default database (e.g. in a procedure).
          if (header.stateChanges?.schema) this.life.markBroken();
          return;
        }
        if (settled || resultSets !== 1 || !rows) return;
        if (rows.length === maxRows) {
          this.life.drop();
          finish({ kind: 'rows', rows, truncated: true });
          return;
        }
        rows.push(result as Row);
      });
      query.on('error', (err: Error & { fatal?: boolean }) => {
        if (err.fatal) this.life.markBroken();
        if (!settled) {
          settled = true;
          reject(err);
        }
      });
      query.on('end', () =>
        finish(rows ? { kind: 'rows', rows, truncated: false } : { kind: 'count', rowCount }),
      );
    });
  }
}

export const openMysqlSession = (spec: SessionSpec) => MysqlSession.open(spec);

/**
 * Stops a statement that outlived the client-side deadline, from a second connection (a user
 * may kill its own threads); needed because dropping the socket does not stop MySQL's work.
 */
async function killQuery(spec: SessionSpec, threadId: number) {
  const connection = mysql.createConnection({
    ...connectionOptions(spec),
    connectTimeout: spec.limits.connectTimeoutMs,
  });
  connection.on('error', () => undefined);
  await new Promise<void>((resolve) =>
    connection.query(`KILL QUERY ${Number(threadId)}`, () => resolve()),
  );
  connection.destroy();
}
