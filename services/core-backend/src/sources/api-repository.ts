/**
 * The `apis` table (text-to-API sources, credentials and headers sealed) and `api_endpoints`
 * (the calls a model may make). Endpoints are read through their API, after its access list.
 */
import type pg from 'pg';
import type { AccessLists } from '../access/access-lists';
import type { Paging } from '../paging';
import { sourceTable } from './source-repository';

export type AuthType = 'none' | 'basic' | 'bearer' | 'jwt';

/** What an API's owner sets: everything but its identity and times. */
export interface ApiColumns {
  name: string;
  description: string;
  base_url: string;
  auth_type: AuthType;
  auth_user: string | null;
  login_path: string | null;
  auth_secret_sealed: string | null;
  headers_sealed: string | null;
}

export interface ApiRecord extends ApiColumns {
  id: string;
  workspace_id: string;
  created_by: string;
  created_at: Date;
  updated_at: Date;
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

/** What an endpoint's owner sets. */
export type EndpointColumns = Omit<EndpointRecord, 'id' | 'api_id' | 'created_at' | 'updated_at'>;

const endpointValues = (e: EndpointColumns) => [
  e.name,
  e.description,
  e.method,
  e.path,
  JSON.stringify(e.params),
  e.allow_write,
];

export function createApiRepository(pool: pg.Pool, access: Pick<AccessLists, 'visibleSql'>) {
  return {
    ...sourceTable<ApiRecord, ApiColumns>(pool, access, { table: 'apis', type: 'api' }, [
      'name',
      'description',
      'base_url',
      'auth_type',
      'auth_user',
      'login_path',
      'auth_secret_sealed',
      'headers_sealed',
    ]),
    async endpoint(apiId: string, id: string): Promise<EndpointRecord | undefined> {
      const { rows } = await pool.query<EndpointRecord>(
        'select * from api_endpoints where id = $1 and api_id = $2',
        [id, apiId],
      );
      return rows[0];
    },
    async endpoints(apiId: string, paging: Paging) {
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
    async insertEndpoint(apiId: string, id: string, endpoint: EndpointColumns) {
      await pool.query(
        `insert into api_endpoints (id, api_id, name, description, method, path, params,
           allow_write)
         values ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [id, apiId, ...endpointValues(endpoint)],
      );
    },
    async updateEndpoint(id: string, endpoint: EndpointColumns) {
      await pool.query(
        `update api_endpoints set name = $2, description = $3, method = $4, path = $5, params = $6,
           allow_write = $7, updated_at = now() where id = $1`,
        [id, ...endpointValues(endpoint)],
      );
    },
    async deleteEndpoint(id: string) {
      await pool.query('delete from api_endpoints where id = $1', [id]);
    },
  };
}

export type ApiRepository = ReturnType<typeof createApiRepository>;
