import { defineRoute } from '@pelita/kit';
import type { DatabaseAccess } from '../database-access';
import {
  ErrorBody,
  ExecuteBody,
  ExecuteHeaders,
  ExecuteResponse,
  toConnectionParams,
} from './schemas';

export function executeRoute(databases: DatabaseAccess) {
  return defineRoute({
    method: 'post',
    path: '/execute',
    summary: 'Run one SQL statement and return its rows',
    description:
      'Values are normalised for JSON: BigInt, int8, numeric, BIGINT and DECIMAL as strings; ' +
      'dates as ISO 8601 (UTC); binary as Base64. A statement without rows answers ' +
      '`{ result: [], rowCount }`. At most MAX_ROWS rows: beyond, `truncated: true`. ' +
      'One statement per request; read-only mode (READ_ONLY or x-db-read-only: true) accepts ' +
      'only reading statements and runs them in a read-only transaction that is rolled back.',
    tags: ['database'],
    request: { headers: ExecuteHeaders, body: ExecuteBody },
    responses: {
      200: { description: 'Rows, or the count of affected rows', schema: ExecuteResponse },
      400: {
        description:
          'Missing query, invalid x-db-* headers, or the database rejected the statement',
        schema: ErrorBody,
      },
      401: { description: 'The database refused the credentials', schema: ErrorBody },
      403: {
        description: 'Host not allowed, read-only violation, or permission denied',
        schema: ErrorBody,
      },
      409: { description: 'Deadlock, serialization failure or lock wait', schema: ErrorBody },
      502: { description: 'The database server could not be reached', schema: ErrorBody },
      503: { description: 'Too many connections (pool or server)', schema: ErrorBody },
      504: { description: 'Connect or statement time-out', schema: ErrorBody },
    },
    handler: async ({ headers, body }, req) =>
      databases.execute(
        toConnectionParams(headers),
        body.query,
        { readOnly: headers['x-db-read-only'] === 'true' },
        req.log,
      ),
  });
}
