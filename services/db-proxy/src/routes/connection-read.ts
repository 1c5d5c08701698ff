/**
 * A GET on the database the x-db-* headers name (/check-connection, /tables): it takes those
 * headers, shares their error answers, and hands the connection parameters to one call.
 */
import { defineRoute, type ResponseSpec } from '@pelita/kit';
import type { ConnectionParams } from '../connection/params';
import { COMMON_ERRORS, ConnectionHeaders, toConnectionParams } from './schemas';

export interface ConnectionRead {
  path: string;
  summary: string;
  description: string;
  /** The 200 answer. */
  ok: ResponseSpec;
  /** Error answers beyond those of the headers (400, 403). */
  errors: Record<number, ResponseSpec>;
  run: (params: ConnectionParams) => Promise<unknown>;
}

export function connectionRead({ path, summary, description, ok, errors, run }: ConnectionRead) {
  return defineRoute({
    method: 'get',
    path,
    summary,
    description,
    tags: ['database'],
    request: { headers: ConnectionHeaders },
    responses: { 200: ok, ...COMMON_ERRORS, ...errors },
    handler: ({ headers }) => run(toConnectionParams(headers)),
  });
}
