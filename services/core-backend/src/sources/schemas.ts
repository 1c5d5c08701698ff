/** Shapes of databases, APIs and endpoints. Secrets go in; only `has_*` flags come out. */
import { storedText } from '@pelita/kit';
import { z } from 'zod';
import type { DatabaseRecord } from './databases';
import type { ApiRecord } from './apis';
import { Description, Name, pageOf, Timestamps } from '../http-schemas';
import { Made, responseOf } from '../row-schemas';

const Secret = storedText().min(1).max(4000);
const HostName = storedText()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9.:[\]_-]+$/, 'a host name or IP address');

export const DatabaseParams = z.object({ workspaceId: z.uuid(), databaseId: z.uuid() });
export const DatabaseBody = z.object({
  name: Name,
  description: Description.default(''),
  engine: z.enum(['postgresql', 'mariadb', 'mysql']),
  host: HostName,
  port: z.number().int().min(1).max(65535),
  database_name: storedText().min(1).max(128),
  username: storedText().min(1).max(128),
  /** Write-only; null removes it. */
  password: Secret.nullable().optional(),
});
/** Only what is given: zod applies a default inside `.partial()` (it emptied the description). */
export const DatabasePatch = DatabaseBody.extend({ description: Description }).partial();
export const DatabaseResponse = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  engine: z.string(),
  host: z.string(),
  port: z.number().int(),
  database_name: z.string(),
  username: z.string(),
  has_password: z.boolean(),
  ...Made,
});
export const DatabaseList = pageOf(DatabaseResponse);
export const toDatabaseResponse = responseOf(DatabaseResponse, (d: DatabaseRecord) => ({
  has_password: d.password_sealed !== null,
}));
export const ConnectionResult = z.object({ status: z.string() });
export const SchemaResult = z.object({
  tables: z.record(
    z.string(),
    z.array(z.object({ column_name: z.string(), data_type: z.string() })),
  ),
});

const Auth = z.discriminatedUnion('type', [
  z.object({ type: z.literal('none') }),
  z.object({
    type: z.literal('basic'),
    user: storedText().min(1).max(200),
    password: Secret.optional(),
  }),
  z.object({ type: z.literal('bearer'), token: Secret.optional() }),
  z.object({
    type: z.literal('jwt'),
    user: storedText().min(1).max(200),
    password: Secret.optional(),
    login_path: storedText().min(1).max(500),
  }),
]);
export const ApiParams = z.object({ workspaceId: z.uuid(), apiId: z.uuid() });
export const ApiBody = z.object({
  name: Name,
  description: Description.default(''),
  base_url: z.url({ protocol: /^https?$/ }).max(2000),
  /** Secrets (password, token) are write-only: left out on a change, the stored one stays. */
  auth: Auth.default({ type: 'none' }),
  /** Sent with every call (sealed at rest, never returned: `header_names` only). */
  headers: z.record(storedText().min(1).max(200), storedText().max(4000)).optional(),
});
export const ApiResponse = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  base_url: z.string(),
  auth: z.object({
    type: z.string(),
    user: z.string().nullable(),
    login_path: z.string().nullable(),
    has_secret: z.boolean(),
  }),
  has_headers: z.boolean(),
  ...Made,
});
export const ApiList = pageOf(ApiResponse);
export const toApiResponse = responseOf(ApiResponse, (a: ApiRecord) => ({
  auth: {
    type: a.auth_type,
    user: a.auth_user,
    login_path: a.login_path,
    has_secret: a.auth_secret_sealed !== null,
  },
  has_headers: a.headers_sealed !== null,
}));

export const EndpointParams = z.object({
  workspaceId: z.uuid(),
  apiId: z.uuid(),
  endpointId: z.uuid(),
});
const Param = z.object({
  name: storedText().min(1).max(100),
  in: z.enum(['query', 'body']),
  type: z.enum(['string', 'number', 'boolean']).default('string'),
  required: z.boolean().default(false),
  description: Description.default(''),
});
export const EndpointBody = z.object({
  name: Name,
  description: Description.default(''),
  method: z.enum(['get', 'post', 'put', 'patch', 'delete']),
  path: storedText()
    .max(1000)
    .regex(/^\/?[^\s]*$/, 'a path without spaces'),
  params: z.array(Param).max(100).default([]),
  /**
   * Any method but GET may change data on the target: such an endpoint is called (tried, or
   * chosen by a model) only when this is true, and only for callers with knowledge.write.
   * False when left out (no default here: a PATCH leaving it out keeps it).
   */
  allow_write: z.boolean().optional(),
});
/** Only what is given: zod applies a default inside `.partial()` (it emptied params). */
export const EndpointPatch = EndpointBody.extend({
  description: Description,
  params: z.array(Param).max(100),
}).partial();
export const EndpointResponse = z.object({
  id: z.string(),
  api_id: z.string(),
  name: z.string(),
  description: z.string(),
  method: z.string(),
  path: z.string(),
  params: z.array(Param),
  allow_write: z.boolean(),
  ...Timestamps,
});
export const EndpointList = pageOf(EndpointResponse);
export const toEndpointResponse = responseOf(EndpointResponse);
export const TryBody = z.object({
  values: z
    .record(z.string(), z.union([storedText().max(10_000), z.number(), z.boolean()]))
    .default({}),
});
export const TryResult = z.object({
  status: z.number().int(),
  content_type: z.string().nullable(),
  body: z.string(),
  truncated: z.boolean(),
});
