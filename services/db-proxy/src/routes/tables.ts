import type { DatabaseAccess } from '../database-access';
import { connectionRead } from './connection-read';
import { ErrorBody, TablesBody } from './schemas';

export function tablesRoute(databases: DatabaseAccess) {
  return connectionRead({
    path: '/tables',
    summary: 'List tables and their columns from information_schema',
    description:
      'PostgreSQL: tables and views of schema `public`. MariaDB/MySQL: of the schema named by ' +
      'x-db-name. Columns in their table order, restricted to the same schema.',
    ok: { description: 'Tables by name, each with its columns', schema: TablesBody },
    errors: {
      401: { description: 'The database refused the credentials', schema: ErrorBody },
      502: { description: 'The database server could not be reached', schema: ErrorBody },
      504: { description: 'Connecting or listing took too long', schema: ErrorBody },
    },
    run: async (params) => ({ tables: await databases.listTables(params) }),
  });
}
