import { defineRoute } from '@pelita/kit';
import type { DatabaseAccess } from '../database-access';
import {
  COMMON_ERRORS,
  ConnectionHeaders,
  ConnectionStatus,
  ErrorBody,
  toConnectionParams,
} from './schemas';

export function checkConnectionRoute(databases: DatabaseAccess) {
  return defineRoute({
    method: 'get',
    path: '/check-connection',
    summary: 'Open a connection with the x-db-* parameters, then close it',
    description:
      'Always a fresh connection, never a pooled one. Any failure to connect answers 500 ' +
      '(as specified), its `code` telling which: auth_failed, unreachable, connect_timeout, ...',
    tags: ['database'],
    request: { headers: ConnectionHeaders },
    responses: {
      200: { description: 'A connection could be established', schema: ConnectionStatus },
      ...COMMON_ERRORS,
      500: { description: 'The connection could not be established', schema: ErrorBody },
    },
    handler: async ({ headers }) => {
      await databases.checkConnection(toConnectionParams(headers));
      return { status: 'connected' };
    },
  });
}
