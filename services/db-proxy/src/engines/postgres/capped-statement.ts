/**
 * One statement over the extended query protocol in a single round trip, with a row cap the
 * server applies: Parse, Bind, Describe, Execute(max rows), Sync. The extended protocol refuses
 * more than one statement ("cannot insert multiple commands into a prepared statement"), and a
 * result longer than the cap stops on the server (PortalSuspended) instead of being read whole.
 * It plugs into node-postgres as a "submittable", the interface pg-cursor and pg-query-stream use.
 */
import type { Connection, Submittable } from 'pg';
import type { Row } from '../../normalise';
import type { StatementOutcome } from '../engine';
import { textParserFor } from './types';

/** The protocol messages this statement reads (fields of pg-protocol's message classes). */
interface FieldDescription {
  name: string;
  dataTypeID: number;
}
interface RowDescriptionMessage {
  fields: FieldDescription[];
}
interface DataRowMessage {
  fields: Array<string | null>;
}
interface CommandCompleteMessage {
  text: string;
}

/** The parts of node-postgres's Connection written to here (its typings lag the code). */
interface ProtocolWriter {
  stream: { cork(): void; uncork(): void };
  parse(message: { text: string }): void;
  bind(message: object): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal: string; rows: number }): void;
  sync(): void;
  sendCopyFail(message: string): void;
}

export class CappedStatement implements Submittable {
  readonly done: Promise<StatementOutcome>;
  private resolve!: (outcome: StatementOutcome) => void;
  private reject!: (err: unknown) => void;
  private names: string[] | undefined;
  private parsers: Array<(text: string) => unknown> = [];
  private template: Row = {};
  private readonly rows: Row[] = [];
  private rowCount = 0;
  private truncated = false;
  private failure: unknown;

  constructor(
    private readonly text: string,
    private readonly maxRows: number,
  ) {
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  submit(connection: Connection): void {
    const wire = connection as unknown as ProtocolWriter;
    // One write for the five messages (node-postgres does the same for its own queries).
    wire.stream.cork();
    try {
      wire.parse({ text: this.text });
      wire.bind({});
      wire.describe({ type: 'P', name: '' });
      // One row more than the cap tells "exactly the cap" from "more than the cap".
      wire.execute({ portal: '', rows: this.maxRows + 1 });
      wire.sync();
    } finally {
      wire.stream.uncork();
    }
  }

  handleRowDescription(message: RowDescriptionMessage): void {
    this.names = message.fields.map((field) => field.name);
    this.parsers = message.fields.map((field) => textParserFor(field.dataTypeID));
    // Rows are copies of one template: same shape, so V8 keeps them fast. fromEntries defines
    // own properties, so even a column called `__proto__` stays an ordinary column.
    this.template = Object.fromEntries(this.names.map((name) => [name, null]));
  }

  handleDataRow(message: DataRowMessage): void {
    if (this.failure !== undefined || !this.names) return;
    if (this.rows.length === this.maxRows) {
      this.truncated = true;
      return;
    }
    const row: Row = { ...this.template };
    const { fields } = message;
    try {
      for (let i = 0; i < fields.length; i += 1) {
        const raw = fields[i];
        if (raw !== null && raw !== undefined)
          row[this.names[i] as string] = this.parsers[i]?.(raw);
      }
    } catch (err) {
      this.failure = err;
      return;
    }
    this.rows.push(row);
  }

  handlePortalSuspended(): void {
    this.truncated = true;
  }

  handleCommandComplete(message: CommandCompleteMessage): void {
    // "INSERT 0 5", "UPDATE 3", "SELECT 2", "CREATE TABLE": the count is the last number.
    const count = /(\d+)$/.exec(message.text);
    this.rowCount = count ? Number(count[1]) : 0;
  }

  handleEmptyQuery(): void {
    // An empty statement (only comments) completes with no rows and no count.
  }

  handleError(err: unknown): void {
    this.reject(err);
  }

  handleReadyForQuery(): void {
    if (this.failure !== undefined) this.reject(this.failure);
    else if (this.names) this.resolve({ kind: 'rows', rows: this.rows, truncated: this.truncated });
    else this.resolve({ kind: 'count', rowCount: this.rowCount });
  }

  /** COPY ... FROM STDIN has no data to read here: refuse it the way node-postgres does. */
  handleCopyInResponse(connection: Connection): void {
    (connection as unknown as ProtocolWriter).sendCopyFail(
      'COPY FROM STDIN is not supported by the database proxy',
    );
  }

  handleCopyData(): void {
    // COPY ... TO STDOUT: the data is not collected; the statement answers its row count.
  }
}
