/**
 * Databases of a workspace (text-to-SQL sources): connection settings with the password sealed;
 * "test connection" and the schema go through db-proxy. Every read goes through the access lists.
 * A chat's statement reads only the listed tables: on PostgreSQL its plan is checked first.
 */
import { HttpError } from '@pelita/kit';
import type { AccessLists } from '../access/access-lists';
import type { Actor, MemberCheck } from '../workspaces/actor';
import type { SecretBox } from '../crypto/secret-box';
import { requireSecretsForNewDestination } from '../crypto/secret-destination';
import type { Paging } from '../paging';
import type { Membership } from '../workspaces/workspaces';
import type { DatabaseColumns, DatabaseRecord, DatabaseRepository } from './database-repository';
import { explainStatement, plannedRelations } from './planned-relations';
import type { DatabaseTarget, DbProxyClient } from './proxy-clients';
import { sourceRecords } from './source-records';

export type { DatabaseRecord } from './database-repository';

export interface DatabaseInput extends Omit<DatabaseColumns, 'password_sealed'> {
  /** A string sets it, null removes it, undefined keeps it. */
  password?: string | null;
}

export function createDatabases(deps: {
  repository: DatabaseRepository;
  access: AccessLists;
  workspaces: MemberCheck;
  box: SecretBox;
  dbProxy: DbProxyClient | undefined;
}) {
  const { box } = deps;
  const records = sourceRecords({
    ...deps,
    type: 'database',
    noun: 'database',
    article: 'A',
    table: deps.repository,
    orderBy: 's.name',
  });
  const { find, reader, writer } = records;
  const proxy = () => {
    if (!deps.dbProxy)
      throw new HttpError(
        503,
        'db_proxy_not_configured',
        'No db-proxy is configured (URL_DB_PROXY)',
      );
    return deps.dbProxy;
  };
  const targetOf = (row: DatabaseRecord): DatabaseTarget => ({
    engine: row.engine,
    host: row.host,
    port: row.port,
    database: row.database_name,
    username: row.username,
    password: row.password_sealed ? box.open(row.password_sealed) : '',
  });
  /** The stored columns: the input without its password, which is sealed (or kept). */
  const columnsOf = (
    { password, ...input }: DatabaseInput,
    before?: DatabaseRecord,
  ): DatabaseColumns => ({
    ...input,
    password_sealed:
      password === undefined
        ? (before?.password_sealed ?? null)
        : password === null
          ? null
          : box.seal(password),
  });

  return {
    find: async (actor: Actor, id: string) => find(await reader(actor), id),
    list: (actor: Actor, paging: Paging) => records.page(actor, paging),
    async create(actor: Actor, input: DatabaseInput) {
      return records.create(await writer(actor), columnsOf(input));
    },
    async update(actor: Actor, id: string, changes: Partial<DatabaseInput>) {
      const member = await writer(actor);
      const before = await find(member, id);
      const merged = { ...before, ...changes };
      // The password goes to host:port; the database name, user and engine are on that server.
      requireSecretsForNewDestination(
        { host: before.host, port: before.port },
        { host: merged.host, port: merged.port },
        [
          {
            field: 'password',
            stored: before.password_sealed !== null,
            given: changes.password !== undefined,
          },
        ],
      );
      return records.update(
        member,
        id,
        columnsOf(
          {
            name: merged.name,
            description: merged.description,
            engine: merged.engine,
            host: merged.host,
            port: merged.port,
            database_name: merged.database_name,
            username: merged.username,
            password: changes.password,
          },
          before,
        ),
      );
    },
    remove: (actor: Actor, id: string) => records.remove(actor, id),
    async test(actor: Actor, id: string) {
      const member = await reader(actor);
      return proxy().check(targetOf(await find(member, id)));
    },
    async tables(actor: Actor, id: string) {
      const member = await reader(actor);
      return proxy().tables(targetOf(await find(member, id)));
    },
    /**
     * The record (access checked), its tables, and a way to run one read-only statement on it
     * that reads only the listed tables (PostgreSQL: checked on the database's own plan first).
     */
    async open(member: Membership, id: string) {
      const record = await find(member, id);
      const target = targetOf(record);
      let listed: ReturnType<DbProxyClient['tables']> | undefined;
      const tables = () => (listed ??= proxy().tables(target));
      return {
        record,
        tables,
        async query(sql: string) {
          if (record.engine === 'postgresql') {
            const { result } = await proxy().query(target, explainStatement(sql));
            const known = new Set(Object.keys((await tables()).tables));
            const outside = plannedRelations(result[0]).find(
              (r) => r.schema !== 'public' || !known.has(r.name),
            );
            if (outside) {
              throw new HttpError(
                422,
                'query_outside_schema',
                `The statement reads ${outside.schema}.${outside.name}, which is not among the database's listed tables`,
              );
            }
          }
          return proxy().query(target, sql);
        },
      };
    },
  };
}

export type Databases = ReturnType<typeof createDatabases>;
