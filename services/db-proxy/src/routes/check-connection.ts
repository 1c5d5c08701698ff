import type { DatabaseAccess } from '../database-access';
import { connectionRead } from './connection-read';
import { ConnectionStatus, ErrorBody } from './schemas';

export function checkConnectionRoute(databases: DatabaseAccess) {
  return connectionRead({
    path: '/check-connection',
    summary: 'Open a connection with the x-db-* parameters, then close it',
    description:
      'Always a fresh connection, never a pooled one. Any failure to connect answers 500 ' +
      '(as specified), its `code` telling which: auth_failed, unreachable, connect_timeout, ...',
    ok: { description: 'A connection could be established', schema: ConnectionStatus },
    errors: {
      500: { description: 'The connection could not be established', schema: ErrorBody },
    },
    run: async (params) => {
      await databases.checkConnection(params);
      return { status: 'connected' };
    },
  });
}
