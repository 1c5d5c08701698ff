import { defineRoute } from '@pelita/kit';
import type { DatabaseAccess } from '../database-access';
import {
  COMMON_ERRORS,
  ConnectionHeaders,
  ErrorBody,
  TablesBody,
  toConnectionParams,
} from './schemas';

export function tablesRoute(databases: DatabaseAccess) {
  return defineRoute({
    method: 'get',
    path: '/tables',
    summary: 'List tables and their columns from information_schema',
    description:
      'PostgreSQL: tables and views of schema `public`. MariaDB/MySQL: of the schema named by ' +
      'x-db-name. Columns in their table order, restricted to the same schema.',
    tags: ['database'],
    request: { headers: ConnectionHeaders },
    responses: {
      200: { description: 'Tables by name, each with its columns', schema: TablesBody },
      ...COMMON_ERRORS,
      401: { description: 'The database refused the credentials', schema: ErrorBody },
      502: { description: 'The database server could not be reached', schema: ErrorBody },
      504: { description: 'Connecting or listing took too long', schema: ErrorBody },
    },
    handler: async ({ headers }) => ({
      tables: await databases.listTables(toConnectionParams(headers)),
    }),
  });
}
