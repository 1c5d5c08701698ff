/**
 * External HTTP APIs of a workspace (text-to-API sources) and their endpoints. Credentials and
 * headers are sealed; "try endpoint" goes through http-proxy. Endpoints share their API's access
 * list.
 */
import { randomUUID } from 'node:crypto';
import { HttpError } from '@pelita/kit';
import type { AccessLists } from '../access/access-lists';
import type { Actor, MemberCheck } from '../workspaces/actor';
import type { SecretBox } from '../crypto/secret-box';
import { originOf, requireSecretsForNewDestination } from '../crypto/secret-destination';
import type { Paging } from '../paging';
import type { Membership } from '../workspaces/workspaces';
import type {
  ApiColumns,
  ApiRecord,
  ApiRepository,
  EndpointColumns,
  EndpointRecord,
} from './api-repository';
import type { ApiConnection, HttpProxyClient } from './proxy-clients';
import { sourceRecords, taken } from './source-records';

export type { ApiRecord, EndpointRecord } from './api-repository';

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

export type EndpointInput = Omit<EndpointColumns, 'allow_write'> & { allow_write?: boolean };

/**
 * Whether `member` may have the endpoint called (tried, or chosen by a model for a chat): a GET
 * for anyone who sees the API; any other method may change data on the target, so only when the
 * API's editors allowed it (`allow_write`) and only for a caller who may write knowledge.
 */
export function mayCall(member: Membership, endpoint: EndpointRecord): boolean {
  if (endpoint.method === 'get') return true;
  return endpoint.allow_write && member.permissions.includes('knowledge.write');
}

const endpointTaken = taken('An endpoint');

export function createApis(deps: {
  repository: ApiRepository;
  access: AccessLists;
  workspaces: MemberCheck;
  box: SecretBox;
  httpProxy: HttpProxyClient | undefined;
}) {
  const { repository, box } = deps;
  const records = sourceRecords({
    ...deps,
    type: 'api',
    noun: 'API',
    article: 'An',
    table: repository,
    orderBy: 's.name',
  });
  const { find, reader, writer } = records;
  /** The endpoint, after its API's access list. */
  async function findEndpoint(
    member: Membership,
    apiId: string,
    id: string,
  ): Promise<EndpointRecord> {
    await find(member, apiId);
    const endpoint = await repository.endpoint(apiId, id);
    if (!endpoint)
      throw new HttpError(404, 'endpoint_not_found', `The endpoint ${id} does not exist`);
    return endpoint;
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

  function columnsOf(input: ApiInput, before?: ApiRecord): ApiColumns {
    const auth = input.auth;
    return {
      name: input.name,
      description: input.description,
      base_url: input.base_url,
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
      return repository.endpoints(apiId, paging);
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
    list: (actor: Actor, paging: Paging) => records.page(actor, paging),
    async create(actor: Actor, input: ApiInput) {
      return records.create(await writer(actor), columnsOf(input));
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
      return records.update(member, id, columnsOf(input, before));
    },
    remove: (actor: Actor, id: string) => records.remove(actor, id),
    async createEndpoint(actor: Actor, apiId: string, input: EndpointInput) {
      const member = await writer(actor);
      await find(member, apiId);
      const id = randomUUID();
      await repository
        .insertEndpoint(apiId, id, { ...input, allow_write: input.allow_write ?? false })
        .catch(endpointTaken);
      return findEndpoint(member, apiId, id);
    },
    async updateEndpoint(actor: Actor, apiId: string, id: string, changes: Partial<EndpointInput>) {
      const member = await writer(actor);
      const before = await findEndpoint(member, apiId, id);
      const merged = { ...before, ...changes };
      await repository
        .updateEndpoint(id, {
          name: merged.name,
          description: merged.description,
          method: merged.method,
          path: merged.path,
          params: merged.params,
          allow_write: changes.allow_write ?? before.allow_write,
        })
        .catch(endpointTaken);
      return findEndpoint(member, apiId, id);
    },
    async removeEndpoint(actor: Actor, apiId: string, id: string) {
      const member = await writer(actor);
      await findEndpoint(member, apiId, id);
      await repository.deleteEndpoint(id);
    },
  };
}

export type Apis = ReturnType<typeof createApis>;
