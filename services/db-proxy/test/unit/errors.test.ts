import { HttpError } from '@pelita/kit';
import {
  DatabaseFailure,
  errorBody,
  toConnectionCheckError,
  toHttpError,
  withoutSecret,
} from '../../src/errors';
import { mysqlFailure } from '../../src/engines/mysql/failures';
import { postgresFailure } from '../../src/engines/postgres/failures';

describe('HTTP mapping', () => {
  it.each([
    ['invalid_query', 400],
    ['auth_failed', 401],
    ['read_only', 403],
    ['host_not_allowed', 403],
    ['unreachable', 502],
    ['statement_timeout', 504],
    ['connect_timeout', 504],
  ] as const)('%s → %i on /tables and /execute', (kind, status) => {
    expect(toHttpError(new DatabaseFailure(kind, 'x'))).toMatchObject({ status, code: kind });
  });

  it('answers 500 on /check-connection for every failure to connect, 403 for a refused host', () => {
    for (const kind of [
      'auth_failed',
      'unreachable',
      'connect_timeout',
      'unknown_database',
    ] as const) {
      expect(toConnectionCheckError(new DatabaseFailure(kind, 'x')).status).toBe(500);
    }
    expect(toConnectionCheckError(new DatabaseFailure('host_not_allowed', 'x')).status).toBe(403);
  });

  it('writes the seed error body, listing every validation problem', () => {
    expect(errorBody(new HttpError(502, 'unreachable', 'down'))).toEqual({
      error: 'down',
      code: 'unreachable',
    });
    const invalid = new HttpError(400, 'invalid_request', 'Invalid request: ...', {
      details: [
        { in: 'headers', path: 'x-db-host', message: 'missing x-db-host header' },
        { in: 'body', path: 'query', message: 'query is required' },
      ],
    });
    expect(errorBody(invalid)).toEqual({
      error: 'Invalid request: missing x-db-host header; query is required',
      code: 'invalid_request',
    });
  });

  it('removes the password from messages', () => {
    expect(withoutSecret('failed for s3cret and s3cret', 's3cret')).toBe(
      'failed for [REDACTED] and [REDACTED]',
    );
  });
});

describe('driver errors', () => {
  it.each([
    [{ code: '28P01', message: 'password authentication failed' }, 'auth_failed'],
    [{ code: '3D000', message: 'database "x" does not exist' }, 'unknown_database'],
    [{ code: '42601', message: 'syntax error' }, 'invalid_query'],
    [{ code: '42P01', message: 'relation does not exist' }, 'invalid_query'],
    [{ code: '25006', message: 'read-only transaction' }, 'read_only'],
    [
      { code: '57014', message: 'canceling statement due to statement timeout' },
      'statement_timeout',
    ],
    [{ code: '40P01', message: 'deadlock' }, 'conflict'],
    [{ code: '57P01', message: 'terminating connection' }, 'database_error'],
    [{ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' }, 'unreachable'],
    [new Error('Connection terminated unexpectedly'), 'connection_lost'],
  ])('PostgreSQL %j → %s', (err, kind) => {
    expect(postgresFailure(err, 'pw')).toMatchObject({ kind });
  });

  it.each([
    [{ errno: 1045, sqlState: '28000', message: 'Access denied' }, 'auth_failed'],
    [{ errno: 1049, sqlState: '42000', message: 'Unknown database' }, 'unknown_database'],
    [{ errno: 1044, sqlState: '42000', message: 'Access denied to database' }, 'permission_denied'],
    [{ errno: 1064, sqlState: '42000', message: 'syntax' }, 'invalid_query'],
    [{ errno: 1792, sqlState: '25006', message: 'READ ONLY' }, 'read_only'],
    [{ errno: 1969, sqlState: '70100', message: 'max_statement_time' }, 'statement_timeout'],
    [{ errno: 1213, sqlState: '40001', message: 'deadlock' }, 'conflict'],
    [{ errno: -111, code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' }, 'unreachable'],
    [{ code: 'PROTOCOL_CONNECTION_LOST', message: 'lost' }, 'connection_lost'],
  ])('MySQL %j → %s', (err, kind) => {
    expect(mysqlFailure(err, 'pw')).toMatchObject({ kind });
  });

  it('keeps the database detail and never the password', () => {
    const failure = postgresFailure(
      {
        code: '23505',
        message: 'duplicate key value',
        detail: 'Key (id)=(1) already exists. p4ss',
      },
      'p4ss',
    );
    expect(failure.message).toBe('duplicate key value (Key (id)=(1) already exists. [REDACTED])');
  });
});
