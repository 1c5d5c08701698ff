/** The `databases` table: connection settings of text-to-SQL sources, the password sealed. */
import type pg from 'pg';
import type { AccessLists } from '../access/access-lists';
import { sourceTable } from './source-repository';

/** What a database's owner sets: everything but its identity and times. */
export interface DatabaseColumns {
  name: string;
  description: string;
  engine: 'postgresql' | 'mariadb' | 'mysql';
  host: string;
  port: number;
  database_name: string;
  username: string;
  password_sealed: string | null;
}

export interface DatabaseRecord extends DatabaseColumns {
  id: string;
  workspace_id: string;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export const createDatabaseRepository = (pool: pg.Pool, access: Pick<AccessLists, 'visibleSql'>) =>
  sourceTable<DatabaseRecord, DatabaseColumns>(
    pool,
    access,
    { table: 'databases', type: 'database' },
    [
      'name',
      'description',
      'engine',
      'host',
      'port',
      'database_name',
      'username',
      'password_sealed',
    ],
  );

export type DatabaseRepository = ReturnType<typeof createDatabaseRepository>;
