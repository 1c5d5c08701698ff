/** node-postgres errors → DatabaseFailure, by SQLSTATE (PostgreSQL error codes appendix). */
import { DatabaseFailure, withoutSecret, type FailureKind } from '../../errors';
import { networkFailure } from '../network-failure';

const BY_SQLSTATE: Record<string, FailureKind> = {
  '28000': 'auth_failed', // invalid_authorization_specification (pg_hba refusal)
  '28P01': 'auth_failed', // invalid_password
  '3D000': 'unknown_database', // invalid_catalog_name
  '42501': 'permission_denied', // insufficient_privilege
  '25006': 'read_only', // read_only_sql_transaction
  '57014': 'statement_timeout', // query_canceled (statement_timeout, or our cancel)
  '40001': 'conflict', // serialization_failure
  '40P01': 'conflict', // deadlock_detected
  '55P03': 'conflict', // lock_not_available
  '53300': 'too_many_connections',
  '57P03': 'too_many_connections', // cannot_connect_now (starting up)
};

/** SQLSTATE classes that are the server's trouble, not the statement's. */
const SERVER_CLASSES: Record<string, FailureKind> = {
  '08': 'connection_lost',
  '53': 'database_error',
  '57': 'database_error',
  '58': 'database_error',
  XX: 'database_error',
};

interface PgError {
  code?: string;
  message?: string;
  detail?: string;
}

export function postgresFailure(err: unknown, password: string): DatabaseFailure {
  if (err instanceof DatabaseFailure) return err;
  const { code, message = String(err), detail } = err as PgError;
  const text = withoutSecret(detail ? `${message} (${detail})` : message, password);
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) {
    const kind = BY_SQLSTATE[code] ?? SERVER_CLASSES[code.slice(0, 2)] ?? 'invalid_query';
    return new DatabaseFailure(kind, text, code);
  }
  return (
    networkFailure(code, text) ??
    new DatabaseFailure('connection_lost', `Connection to the database failed: ${text}`)
  );
}
