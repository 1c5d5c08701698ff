/**
 * Request and response schemas of the three endpoints, and the mapper from the x-db-* headers to
 * connection parameters. The same schemas validate requests and generate /api-docs.
 */
import { z } from 'zod';
import { MODES, type ConnectionParams } from '../connection/params';

function missingOr(name: string, invalid: string) {
  return {
    error: (issue: { input?: unknown }) =>
      issue.input === undefined ? `missing ${name} header` : `${name} header ${invalid}`,
  };
}

/** Host names, IPv4 and IPv6 addresses (brackets allowed); no `/`, so no Unix socket path. */
const HOST = /^\[?[A-Za-z0-9._:%-]{1,253}\]?$/;

export const ConnectionHeaders = z.object({
  'x-db-mode': z
    .enum(MODES, missingOr('x-db-mode', `must be one of ${MODES.join(', ')}`))
    .describe('Database engine; `mariadb` and `mysql` both use the MySQL protocol'),
  'x-db-host': z
    .string(missingOr('x-db-host', 'must be text'))
    .regex(HOST, 'x-db-host header must be a host name or an IP address')
    .describe('Database server host (subject to ALLOWED_DB_HOSTS)'),
  'x-db-port': z
    .string(missingOr('x-db-port', 'must be text'))
    .regex(/^\d{1,5}$/, {
      error: 'x-db-port header must be a port number (1-65535)',
      abort: true,
    })
    .refine(
      (port) => Number(port) >= 1 && Number(port) <= 65535,
      'x-db-port header must be a port number (1-65535)',
    )
    .describe('Database server port'),
  'x-db-user': z
    .string(missingOr('x-db-user', 'must be text'))
    .min(1, 'x-db-user header must not be empty')
    .describe('Database user'),
  'x-db-password': z
    .string(missingOr('x-db-password', 'must be text'))
    .describe('Database password (may be empty; never logged)'),
  'x-db-name': z
    .string(missingOr('x-db-name', 'must be text'))
    .min(1, 'x-db-name header must not be empty')
    .describe('Database name; on MariaDB/MySQL also the schema /tables lists'),
});

export const ExecuteHeaders = ConnectionHeaders.extend({
  'x-db-read-only': z
    .enum(['true', 'false'], { error: 'x-db-read-only header must be true or false' })
    .optional()
    .describe(
      'true runs the statement read-only; false cannot lift the service-wide READ_ONLY setting',
    ),
});

export function toConnectionParams(headers: z.infer<typeof ConnectionHeaders>): ConnectionParams {
  return {
    mode: headers['x-db-mode'],
    host: headers['x-db-host'].replace(/^\[(.*)\]$/, '$1'),
    port: Number(headers['x-db-port']),
    user: headers['x-db-user'],
    password: headers['x-db-password'],
    database: headers['x-db-name'],
  };
}

const ExecuteBodyFields = z.object({
  query: z
    .string({ error: 'query is required' })
    .refine((query) => query.trim().length > 0, 'query is required')
    .describe('One SQL statement'),
});

/**
 * Seed: "`query` missing → 400, message says the query is required". A POST without a JSON body
 * is parsed as `{}` so it gets the same message.
 */
export const ExecuteBody = ExecuteBodyFields.prefault({} as z.input<typeof ExecuteBodyFields>);

export const ErrorBody = z.object({
  error: z.string().describe('What went wrong, with the database message when it helps'),
  code: z.string().optional().describe('Stable code: invalid_query, auth_failed, unreachable, ...'),
});

export const ConnectionStatus = z.object({ status: z.literal('connected') });

export const TablesBody = z.object({
  tables: z.record(
    z.string(),
    z.array(z.object({ column_name: z.string(), data_type: z.string() })),
  ),
});

export const ExecuteResponse = z.object({
  result: z.array(z.record(z.string(), z.unknown())),
  rowCount: z
    .number()
    .int()
    .optional()
    .describe('Only for statements without rows: rows affected (0 when none are counted)'),
  truncated: z.literal(true).optional().describe('Present when the rows were cut at MAX_ROWS'),
});

/** Error responses every database endpoint shares. */
export const COMMON_ERRORS = {
  400: {
    description: 'Missing or invalid x-db-* headers (the message names them)',
    schema: ErrorBody,
  },
  403: { description: 'x-db-host is not allowed by ALLOWED_DB_HOSTS', schema: ErrorBody },
};
