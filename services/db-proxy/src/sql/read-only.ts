/**
 * Which statements read-only mode accepts. The database enforces read-only access itself (the
 * statement runs in a READ ONLY transaction, on MariaDB/MySQL also a read-only session, and is
 * always rolled back); this allow-list closes what that leaves open: statements that end the
 * transaction or run outside it (MariaDB commits implicitly before DDL, a MySQL procedure may
 * COMMIT and switch to read-write), and MySQL's INTO OUTFILE, which writes a server file from a
 * read-only transaction.
 */
import { DatabaseFailure } from '../errors';
import { statementHead, type Dialect } from './leading-keyword';

const READ_STATEMENTS: Record<Dialect, readonly string[]> = {
  postgresql: ['SELECT', 'WITH', 'VALUES', 'TABLE', 'SHOW', 'EXPLAIN'],
  mysql: ['SELECT', 'WITH', 'VALUES', 'TABLE', 'SHOW', 'EXPLAIN', 'DESCRIBE', 'DESC'],
};

/**
 * Conservative on purpose: the words are looked for anywhere, strings and comments included,
 * because a lexer that disagrees with the server (sql_mode NO_BACKSLASH_ESCAPES, ANSI_QUOTES)
 * could otherwise be led to skip them.
 */
const MYSQL_FILE_WRITE = /(?<![A-Za-z0-9_$])(OUTFILE|DUMPFILE)(?![A-Za-z0-9_$])/i;

/** Throws a `read_only` failure unless `sql` may run in read-only mode. */
export function assertReadOnlyStatement(sql: string, dialect: Dialect): void {
  const head = statementHead(sql, dialect);
  if (head.executableComment) {
    throw refused(
      'a MySQL executable comment (/*! ... */) before the statement keyword is not accepted',
    );
  }
  const accepted = READ_STATEMENTS[dialect];
  if (!head.empty && (head.keyword === undefined || !accepted.includes(head.keyword))) {
    const got = head.keyword ?? 'a statement that does not start with a keyword';
    throw refused(`only ${accepted.join(', ')} statements are accepted, not ${got}`);
  }
  if (dialect === 'mysql') {
    const fileWrite = MYSQL_FILE_WRITE.exec(sql);
    if (fileWrite) throw refused(`INTO ${fileWrite[1]?.toUpperCase()} writes a file on the server`);
  }
}

function refused(reason: string): DatabaseFailure {
  return new DatabaseFailure('read_only', `Read-only mode: ${reason}`);
}
