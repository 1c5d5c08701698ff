/**
 * Databases of a workspace (text-to-SQL sources): connection settings with the password sealed;
 * "test connection" and the schema go through db-proxy. Every read goes through the access lists.
 * A chat's statement reads only the listed tables: on PostgreSQL its plan is checked first.
 */
import { randomUUID } from 'node:crypto';
import { conflict, HttpError, inTransaction } from '@pelita/kit';
import type pg from 'pg';
import type { AccessLists } from '../access/access-lists';
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import type { SecretBox } from '../crypto/secret-box';
import { requireSecretsForNewDestination } from '../crypto/secret-destination';
import { isUniqueViolation } from '../db/database';
import type { Paging } from '../paging';
import type { Membership } from '../workspaces/workspaces';
import { explainStatement, plannedRelations } from './planned-relations';
import type { DatabaseTarget, DbProxyClient } from './proxy-clients';

export interface DatabaseRecord {
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  engine: DatabaseTarget['engine'];
  host: string;
  port: number;
  database_name: string;
  username: string;
  password_sealed: string | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export interface DatabaseInput {
  name: string;
  description: string;
  engine: DatabaseTarget['engine'];
  host: string;
  port: number;
  database_name: string;
  username: string;
  /** A string sets it, null removes it, undefined keeps it. */
  password?: string | null;
}

const taken = (err: unknown) => {
  throw isUniqueViolation(err) ? conflict('A database of that name exists') : err;
};

export function createDatabases(deps: {
  pool: pg.Pool;
  access: AccessLists;
  workspaces: MemberCheck;
  box: SecretBox;
  dbProxy: DbProxyClient | undefined;
}) {
  const { pool, access, box } = deps;
  async function find(member: Membership, id: string): Promise<DatabaseRecord> {
    await access.requireVisible(member, 'database', id);
    const { rows } = await pool.query<DatabaseRecord>('select * from databases where id = $1', [
      id,
    ]);
    if (!rows[0])
      throw new HttpError(404, 'database_not_found', `The database ${id} does not exist`);
    return rows[0];
  }
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

  // Reading a database asks `knowledge.read`, changing one `knowledge.write`.
  const reader = (actor: Actor) => memberOf(deps.workspaces, actor, 'knowledge.read');
  const writer = (actor: Actor) => memberOf(deps.workspaces, actor, 'knowledge.write');

  return {
    find: async (actor: Actor, id: string) => find(await reader(actor), id),
    async list(actor: Actor, paging: Paging) {
      const member = await reader(actor);
      const values: unknown[] = [member.workspaceId];
      const where = `d.workspace_id = $1 and ${access.visibleSql(member, 'database', 'd', values)}`;
      const { rows: count } = await pool.query<{ n: number }>(
        `select count(*)::int as n from databases d where ${where}`,
        values,
      );
      values.push(paging.limit, (paging.page - 1) * paging.limit);
      const { rows } = await pool.query<DatabaseRecord>(
        `select d.* from databases d where ${where} order by d.name limit $${values.length - 1} offset $${values.length}`,
        values,
      );
      return { rows, total: count[0]?.n ?? 0 };
    },
    async create(actor: Actor, input: DatabaseInput) {
      const member = await writer(actor);
      const id = randomUUID();
      await inTransaction(pool, async (client) => {
        await client
          .query(
            `insert into databases (id, workspace_id, name, description, engine, host, port,
               database_name, username, password_sealed, created_by)
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
            [
              id,
              member.workspaceId,
              input.name,
              input.description,
              input.engine,
              input.host,
              input.port,
              input.database_name,
              input.username,
              input.password ? box.seal(input.password) : null,
              member.userId,
            ],
          )
          .catch(taken);
        await access.grantCreator(member, 'database', id, client);
      });
      return find(member, id);
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
      const sealed =
        changes.password === undefined
          ? before.password_sealed
          : changes.password === null
            ? null
            : box.seal(changes.password);
      await pool
        .query(
          `update databases set name = $2, description = $3, engine = $4, host = $5, port = $6,
             database_name = $7, username = $8, password_sealed = $9, updated_at = now() where id = $1`,
          [
            id,
            merged.name,
            merged.description,
            merged.engine,
            merged.host,
            merged.port,
            merged.database_name,
            merged.username,
            sealed,
          ],
        )
        .catch(taken);
      return find(member, id);
    },
    async remove(actor: Actor, id: string) {
      const member = await writer(actor);
      await find(member, id);
      await pool.query('delete from databases where id = $1', [id]);
      await access.forget('database', id);
    },
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
