/**
 * mysql2 errors → DatabaseFailure, by server error number (MySQL and MariaDB share them); the
 * SQLSTATE is too coarse (42000 is both a syntax error and "access denied to database").
 */
import { DatabaseFailure, withoutSecret, type FailureKind } from '../../errors';
import { networkFailure } from '../network-failure';

const BY_ERRNO: Record<number, FailureKind> = {
  1045: 'auth_failed', // ER_ACCESS_DENIED_ERROR
  1698: 'auth_failed', // ER_ACCESS_DENIED_NO_PASSWORD_ERROR
  1130: 'auth_failed', // ER_HOST_NOT_PRIVILEGED: this client host may not log in
  1251: 'auth_failed', // ER_NOT_SUPPORTED_AUTH_MODE
  1044: 'permission_denied', // ER_DBACCESS_DENIED_ERROR
  1142: 'permission_denied', // ER_TABLEACCESS_DENIED_ERROR
  1143: 'permission_denied', // ER_COLUMNACCESS_DENIED_ERROR
  1227: 'permission_denied', // ER_SPECIFIC_ACCESS_DENIED_ERROR
  1370: 'permission_denied', // ER_PROCACCESS_DENIED_ERROR
  1049: 'unknown_database', // ER_BAD_DB_ERROR
  1792: 'read_only', // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
  1290: 'read_only', // ER_OPTION_PREVENTS_STATEMENT (--read-only server)
  1969: 'statement_timeout', // MariaDB ER_STATEMENT_TIMEOUT (max_statement_time)
  3024: 'statement_timeout', // MySQL ER_QUERY_TIMEOUT (max_execution_time)
  1317: 'statement_timeout', // ER_QUERY_INTERRUPTED (our KILL QUERY after the deadline)
  1205: 'conflict', // ER_LOCK_WAIT_TIMEOUT
  1213: 'conflict', // ER_LOCK_DEADLOCK
  1040: 'too_many_connections', // ER_CON_COUNT_ERROR
  1203: 'too_many_connections', // ER_TOO_MANY_USER_CONNECTIONS
  1226: 'too_many_connections', // ER_USER_LIMIT_REACHED
  1927: 'connection_lost', // ER_CONNECTION_KILLED
};

interface MysqlError {
  errno?: number;
  code?: string;
  sqlState?: string;
  message?: string;
}

export function mysqlFailure(err: unknown, password: string): DatabaseFailure {
  if (err instanceof DatabaseFailure) return err;
  const { errno, code, sqlState, message = String(err) } = err as MysqlError;
  const text = withoutSecret(message, password);
  // Server errors are numbered below 2000; 2000 and above are client-library errors.
  if (errno !== undefined && errno < 2000 && sqlState !== undefined) {
    return new DatabaseFailure(BY_ERRNO[errno] ?? 'invalid_query', text, sqlState);
  }
  return (
    networkFailure(code, text) ??
    new DatabaseFailure('connection_lost', `Connection to the database failed: ${text}`)
  );
}
