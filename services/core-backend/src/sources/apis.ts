/**
 * External HTTP APIs of a workspace (text-to-API sources) and their endpoints. Credentials and
 * headers are sealed; "try endpoint" goes through http-proxy. Endpoints share their API's access
 * list.
 */
import { randomUUID } from 'node:crypto';
import { conflict, HttpError, inTransaction } from '@pelita/kit';
import type pg from 'pg';
import type { AccessLists } from '../access/access-lists';
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import type { SecretBox } from '../crypto/secret-box';
import { originOf, requireSecretsForNewDestination } from '../crypto/secret-destination';
import { isUniqueViolation } from '../db/database';
import type { Paging } from '../paging';
import type { Membership } from '../workspaces/workspaces';
import type { ApiConnection, HttpProxyClient } from './proxy-clients';

export type AuthType = 'none' | 'basic' | 'bearer' | 'jwt';

export interface ApiRecord {
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  base_url: string;
  auth_type: AuthType;
  auth_user: string | null;
  login_path: string | null;
  auth_secret_sealed: string | null;
  headers_sealed: string | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export interface ApiInput {
  name: string;
  description: string;
  base_url: string;
  auth:
    | { type: 'none' }
    | { type: 'basic'; user: string; password?: string }
    | { type: 'bearer'; token?: string }
    | { type: 'jwt'; user: string; password?: string; login_path: string };
  /** Replaces the headers when given. */
  headers?: Record<string, string>;
}

export interface EndpointParam {
  name: string;
  in: 'query' | 'body';
  type: 'string' | 'number' | 'boolean';
  required: boolean;
  description: string;
}

export interface EndpointRecord {
  id: string;
  api_id: string;
  name: string;
  description: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  params: EndpointParam[];
  /** The API's editors allow calling it although its method may change data (not GET). */
  allow_write: boolean;
  created_at: Date;
  updated_at: Date;
}

export type EndpointInput = Omit<
  EndpointRecord,
  'id' | 'api_id' | 'allow_write' | 'created_at' | 'updated_at'
> & { allow_write?: boolean };

/**
 * Whether `member` may have the endpoint called (tried, or chosen by a model for a chat): a GET
 * for anyone who sees the API; any other method may change data on the target, so only when the
 * API's editors allowed it (`allow_write`) and only for a caller who may write knowledge.
 */
export function mayCall(member: Membership, endpoint: EndpointRecord): boolean {
  if (endpoint.method === 'get') return true;
  return endpoint.allow_write && member.permissions.includes('knowledge.write');
}

const taken = (what: string) => (err: unknown) => {
  throw isUniqueViolation(err) ? conflict(`${what} of that name exists`) : err;
};

export function createApis(deps: {
  pool: pg.Pool;
  access: AccessLists;
  workspaces: MemberCheck;
  box: SecretBox;
  httpProxy: HttpProxyClient | undefined;
}) {
  const { pool, access, box } = deps;
  async function find(member: Membership, id: string): Promise<ApiRecord> {
    await access.requireVisible(member, 'api', id);
    const { rows } = await pool.query<ApiRecord>('select * from apis where id = $1', [id]);
    if (!rows[0]) throw new HttpError(404, 'api_not_found', `The API ${id} does not exist`);
    return rows[0];
  }
  async function findEndpoint(
    member: Membership,
    apiId: string,
    id: string,
  ): Promise<EndpointRecord> {
    await find(member, apiId);
    const { rows } = await pool.query<EndpointRecord>(
      'select * from api_endpoints where id = $1 and api_id = $2',
      [id, apiId],
    );
    if (!rows[0])
      throw new HttpError(404, 'endpoint_not_found', `The endpoint ${id} does not exist`);
    return rows[0];
  }

  /** The stored secret for the new auth: a new one when given, the old one when the type stays. */
  function secretFor(input: ApiInput['auth'], before: ApiRecord | undefined): string | null {
    const given =
      input.type === 'bearer' ? input.token : input.type === 'none' ? undefined : input.password;
    if (given) return box.seal(given);
    if (input.type === 'none') return null;
    if (before && before.auth_type === input.type) return before.auth_secret_sealed;
    throw new HttpError(
      400,
      'invalid_request',
      `${input.type} authentication needs its ${input.type === 'bearer' ? 'token' : 'password'}`,
    );
  }

  function authColumns(input: ApiInput, before?: ApiRecord) {
    const auth = input.auth;
    return {
      auth_type: auth.type,
      auth_user: auth.type === 'basic' || auth.type === 'jwt' ? auth.user : null,
      login_path: auth.type === 'jwt' ? auth.login_path : null,
      auth_secret_sealed: secretFor(auth, before),
      headers_sealed: input.headers
        ? box.seal(JSON.stringify(input.headers))
        : (before?.headers_sealed ?? null),
    };
  }

  /**
   * What a chat asks with the membership it already holds (a key's narrowed one, too): the
   * API, its endpoints, a call. Routes go through the actor-taking functions below.
   */
  const forMember = {
    find,
    async endpoints(member: Membership, apiId: string, paging: Paging) {
      await find(member, apiId);
      const { rows: count } = await pool.query<{ n: number }>(
        'select count(*)::int as n from api_endpoints where api_id = $1',
        [apiId],
      );
      const { rows } = await pool.query<EndpointRecord>(
        'select * from api_endpoints where api_id = $1 order by name limit $2 offset $3',
        [apiId, paging.limit, (paging.page - 1) * paging.limit],
      );
      return { rows, total: count[0]?.n ?? 0 };
    },
    /** Calls the endpoint through http-proxy with the API's credentials and the given values. */
    async tryEndpoint(
      member: Membership,
      apiId: string,
      id: string,
      values: Record<string, string | number | boolean>,
    ) {
      if (!deps.httpProxy)
        throw new HttpError(
          503,
          'http_proxy_not_configured',
          'No http-proxy is configured (URL_HTTP_PROXY)',
        );
      const api = await find(member, apiId);
      const endpoint = await findEndpoint(member, apiId, id);
      if (!mayCall(member, endpoint)) {
        const call = `${endpoint.method.toUpperCase()} ${endpoint.path}`;
        throw new HttpError(
          403,
          'endpoint_write_forbidden',
          endpoint.allow_write
            ? `${call} may change data: calling it takes knowledge.write`
            : `${call} may change data and its API does not allow calling it (allow_write)`,
        );
      }
      const missing = endpoint.params
        .filter((p) => p.required && values[p.name] === undefined)
        .map((p) => p.name);
      if (missing.length > 0)
        throw new HttpError(400, 'invalid_request', `Missing parameters: ${missing.join(', ')}`);
      const known = new Set(endpoint.params.map((p) => p.name));
      const unknown = Object.keys(values).filter((name) => !known.has(name));
      if (unknown.length > 0)
        throw new HttpError(400, 'invalid_request', `Unknown parameters: ${unknown.join(', ')}`);
      const secret = api.auth_secret_sealed ? box.open(api.auth_secret_sealed) : '';
      const query = endpoint.params.filter((p) => p.in === 'query' && values[p.name] !== undefined);
      const body = endpoint.params.filter((p) => p.in === 'body' && values[p.name] !== undefined);
      const connection: ApiConnection = {
        host: api.base_url,
        ...(api.auth_type === 'basic'
          ? { auth: { type: 'basic', user: api.auth_user ?? '', password: secret } }
          : {}),
        ...(api.auth_type === 'bearer' ? { auth: { type: 'bearer', token: secret } } : {}),
        ...(api.auth_type === 'jwt'
          ? {
              auth: {
                type: 'jwt',
                user: api.auth_user ?? '',
                password: secret,
                loginPath: api.login_path ?? '',
              },
            }
          : {}),
        ...(api.headers_sealed
          ? { headers: JSON.parse(box.open(api.headers_sealed)) as Record<string, string> }
          : {}),
        endpoint: {
          path: endpoint.path,
          method: endpoint.method,
          params: query.map((p) => ({ key: p.name, value: String(values[p.name]) })),
          ...(body.length
            ? { body: Object.fromEntries(body.map((p) => [p.name, values[p.name]])) }
            : {}),
        },
      };
      return deps.httpProxy.call(connection);
    },
  };

  // Reading an API asks `knowledge.read`, changing one `knowledge.write`.
  const reader = (actor: Actor) => memberOf(deps.workspaces, actor, 'knowledge.read');
  const writer = (actor: Actor) => memberOf(deps.workspaces, actor, 'knowledge.write');

  return {
    forMember,
    find: async (actor: Actor, id: string) => find(await reader(actor), id),
    findEndpoint: async (actor: Actor, apiId: string, id: string) =>
      findEndpoint(await reader(actor), apiId, id),
    endpoints: async (actor: Actor, apiId: string, paging: Paging) =>
      forMember.endpoints(await reader(actor), apiId, paging),
    /** Calls the endpoint (see forMember.tryEndpoint) as the actor. */
    tryEndpoint: async (
      actor: Actor,
      apiId: string,
      id: string,
      values: Record<string, string | number | boolean>,
    ) => forMember.tryEndpoint(await reader(actor), apiId, id, values),
    async list(actor: Actor, paging: Paging) {
      const member = await reader(actor);
      const values: unknown[] = [member.workspaceId];
      const where = `a.workspace_id = $1 and ${access.visibleSql(member, 'api', 'a', values)}`;
      const { rows: count } = await pool.query<{ n: number }>(
        `select count(*)::int as n from apis a where ${where}`,
        values,
      );
      values.push(paging.limit, (paging.page - 1) * paging.limit);
      const { rows } = await pool.query<ApiRecord>(
        `select a.* from apis a where ${where} order by a.name limit $${values.length - 1} offset $${values.length}`,
        values,
      );
      return { rows, total: count[0]?.n ?? 0 };
    },
    async create(actor: Actor, input: ApiInput) {
      const member = await writer(actor);
      const id = randomUUID();
      const columns = authColumns(input);
      await inTransaction(pool, async (client) => {
        await client
          .query(
            `insert into apis (id, workspace_id, name, description, base_url, auth_type, auth_user,
                 login_path, auth_secret_sealed, headers_sealed, created_by)
               values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
            [
              id,
              member.workspaceId,
              input.name,
              input.description,
              input.base_url,
              columns.auth_type,
              columns.auth_user,
              columns.login_path,
              columns.auth_secret_sealed,
              columns.headers_sealed,
              member.userId,
            ],
          )
          .catch(taken('An API'));
        await access.grantCreator(member, 'api', id, client);
      });
      return find(member, id);
    },
    async update(actor: Actor, id: string, input: ApiInput) {
      const member = await writer(actor);
      const before = await find(member, id);
      const auth = input.auth;
      // The credentials and the headers (API keys ride there) go to the base URL's origin.
      requireSecretsForNewDestination(
        { base_url: originOf(before.base_url) },
        { base_url: originOf(input.base_url) },
        [
          {
            field: auth.type === 'bearer' ? 'auth.token' : 'auth.password',
            stored: before.auth_secret_sealed !== null && auth.type !== 'none',
            given: Boolean(
              auth.type === 'bearer' ? auth.token : auth.type !== 'none' && auth.password,
            ),
          },
          {
            field: 'headers',
            stored: before.headers_sealed !== null,
            given: input.headers !== undefined,
          },
        ],
      );
      const columns = authColumns(input, before);
      await pool
        .query(
          `update apis set name = $2, description = $3, base_url = $4, auth_type = $5, auth_user = $6,
             login_path = $7, auth_secret_sealed = $8, headers_sealed = $9, updated_at = now() where id = $1`,
          [
            id,
            input.name,
            input.description,
            input.base_url,
            columns.auth_type,
            columns.auth_user,
            columns.login_path,
            columns.auth_secret_sealed,
            columns.headers_sealed,
          ],
        )
        .catch(taken('An API'));
      return find(member, id);
    },
    async remove(actor: Actor, id: string) {
      const member = await writer(actor);
      await find(member, id);
      await pool.query('delete from apis where id = $1', [id]);
      await access.forget('api', id);
    },
    async createEndpoint(actor: Actor, apiId: string, input: EndpointInput) {
      const member = await writer(actor);
      await find(member, apiId);
      const id = randomUUID();
      await pool
        .query(
          `insert into api_endpoints (id, api_id, name, description, method, path, params,
             allow_write)
           values ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [
            id,
            apiId,
            input.name,
            input.description,
            input.method,
            input.path,
            JSON.stringify(input.params),
            input.allow_write ?? false,
          ],
        )
        .catch(taken('An endpoint'));
      return findEndpoint(member, apiId, id);
    },
    async updateEndpoint(actor: Actor, apiId: string, id: string, changes: Partial<EndpointInput>) {
      const member = await writer(actor);
      const before = await findEndpoint(member, apiId, id);
      const merged = { ...before, ...changes };
      await pool
        .query(
          `update api_endpoints set name = $2, description = $3, method = $4, path = $5, params = $6,
             allow_write = $7, updated_at = now() where id = $1`,
          [
            id,
            merged.name,
            merged.description,
            merged.method,
            merged.path,
            JSON.stringify(merged.params),
            changes.allow_write ?? before.allow_write,
          ],
        )
        .catch(taken('An endpoint'));
      return findEndpoint(member, apiId, id);
    },
    async removeEndpoint(actor: Actor, apiId: string, id: string) {
      const member = await writer(actor);
      await findEndpoint(member, apiId, id);
      await pool.query('delete from api_endpoints where id = $1', [id]);
    },
  };
}

export type Apis = ReturnType<typeof createApis>;
