/**
 * /api/workspaces/:id/databases and /apis (with /endpoints): external sources for text-to-SQL
 * and text-to-API. Reading needs `knowledge.read` and the access list; changing needs
 * `knowledge.write`.
 */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import { actorOf, type CallerOf } from '../workspaces/caller';
import { Deleted, Paging, WorkspaceParams } from '../http-schemas';
import {
  ApiBody,
  ApiList,
  ApiParams,
  ApiResponse,
  ConnectionResult,
  DatabaseBody,
  DatabaseList,
  DatabaseParams,
  DatabasePatch,
  DatabaseResponse,
  EndpointBody,
  EndpointList,
  EndpointParams,
  EndpointPatch,
  EndpointResponse,
  SchemaResult,
  toApiResponse,
  toDatabaseResponse,
  toEndpointResponse,
  TryBody,
  TryResult,
} from './schemas';
import type { Apis } from './apis';
import type { Databases } from './databases';

export function sourceRoutes(deps: {
  databases: Databases;
  apis: Apis;
  callerOf: CallerOf;
}): RouteDefinition[] {
  const { databases, apis } = deps;
  const actor = (req: Parameters<CallerOf>[0], workspaceId: string) =>
    actorOf(deps.callerOf, req, workspaceId);
  const missing = { description: 'No such workspace or source (or not shared with the caller)' };
  const taken = { description: 'Name taken' };
  const upstream = {
    403: { description: 'The database host is not allowed by db-proxy' },
    422: { description: 'The database refused the credentials, or has no such database' },
    502: { description: 'The database is unreachable or failed' },
    503: { description: 'db-proxy is not configured or unreachable' },
    504: { description: 'No answer in time' },
  };
  const db = { description: 'The database', schema: DatabaseResponse };
  const api = { description: 'The API', schema: ApiResponse };
  const endpoint = { description: 'The endpoint', schema: EndpointResponse };
  const dbs = '/api/workspaces/:workspaceId/databases';
  const apisPath = '/api/workspaces/:workspaceId/apis';
  const endpoints = `${apisPath}/:apiId/endpoints`;
  return [
    defineRoute({
      method: 'get',
      path: dbs,
      summary: 'Databases the caller may use',
      tags: ['databases'],
      request: { params: WorkspaceParams, query: Paging },
      responses: {
        200: { description: 'A page of databases', schema: DatabaseList },
        404: missing,
      },
      handler: async ({ params, query }, req) => {
        const { rows, total } = await databases.list(await actor(req, params.workspaceId), query);
        return { data: rows.map(toDatabaseResponse), total, ...query };
      },
    }),
    defineRoute({
      method: 'post',
      path: dbs,
      summary: 'Add a database (its password is sealed at rest, never returned)',
      tags: ['databases'],
      successStatus: 201,
      request: { params: WorkspaceParams, body: DatabaseBody },
      responses: { 201: db, 404: missing, 409: taken },
      handler: async ({ params, body }, req) =>
        toDatabaseResponse(await databases.create(await actor(req, params.workspaceId), body)),
    }),
    defineRoute({
      method: 'get',
      path: `${dbs}/:databaseId`,
      summary: 'One database',
      tags: ['databases'],
      request: { params: DatabaseParams },
      responses: { 200: db, 404: missing },
      handler: async ({ params }, req) =>
        toDatabaseResponse(
          await databases.find(await actor(req, params.workspaceId), params.databaseId),
        ),
    }),
    defineRoute({
      method: 'patch',
      path: `${dbs}/:databaseId`,
      summary: 'Change a database (a password left out stays)',
      tags: ['databases'],
      request: { params: DatabaseParams, body: DatabasePatch },
      responses: { 200: db, 404: missing, 409: taken },
      handler: async ({ params, body }, req) =>
        toDatabaseResponse(
          await databases.update(await actor(req, params.workspaceId), params.databaseId, body),
        ),
    }),
    defineRoute({
      method: 'delete',
      path: `${dbs}/:databaseId`,
      summary: 'Delete a database',
      tags: ['databases'],
      request: { params: DatabaseParams },
      responses: { 200: { description: 'Deleted', schema: Deleted }, 404: missing },
      handler: async ({ params }, req) => {
        await databases.remove(await actor(req, params.workspaceId), params.databaseId);
        return { deleted: true };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${dbs}/:databaseId/test`,
      summary: 'Test the connection, through db-proxy',
      tags: ['databases'],
      request: { params: DatabaseParams },
      responses: {
        200: { description: 'Connected', schema: ConnectionResult },
        404: missing,
        ...upstream,
      },
      handler: async ({ params }, req) =>
        databases.test(await actor(req, params.workspaceId), params.databaseId),
    }),
    defineRoute({
      method: 'get',
      path: `${dbs}/:databaseId/schema`,
      summary: 'Tables and columns, through db-proxy',
      tags: ['databases'],
      request: { params: DatabaseParams },
      responses: {
        200: { description: 'The schema', schema: SchemaResult },
        404: missing,
        ...upstream,
      },
      handler: async ({ params }, req) =>
        databases.tables(await actor(req, params.workspaceId), params.databaseId),
    }),
    defineRoute({
      method: 'get',
      path: apisPath,
      summary: 'APIs the caller may use',
      tags: ['apis'],
      request: { params: WorkspaceParams, query: Paging },
      responses: { 200: { description: 'A page of APIs', schema: ApiList }, 404: missing },
      handler: async ({ params, query }, req) => {
        const { rows, total } = await apis.list(await actor(req, params.workspaceId), query);
        return { data: rows.map(toApiResponse), total, ...query };
      },
    }),
    defineRoute({
      method: 'post',
      path: apisPath,
      summary: 'Add an API (credentials and headers sealed at rest, never returned)',
      tags: ['apis'],
      successStatus: 201,
      request: { params: WorkspaceParams, body: ApiBody },
      responses: { 201: api, 404: missing, 409: taken },
      handler: async ({ params, body }, req) =>
        toApiResponse(await apis.create(await actor(req, params.workspaceId), body)),
    }),
    defineRoute({
      method: 'get',
      path: `${apisPath}/:apiId`,
      summary: 'One API',
      tags: ['apis'],
      request: { params: ApiParams },
      responses: { 200: api, 404: missing },
      handler: async ({ params }, req) =>
        toApiResponse(await apis.find(await actor(req, params.workspaceId), params.apiId)),
    }),
    defineRoute({
      method: 'put',
      path: `${apisPath}/:apiId`,
      summary: 'Replace an API (secrets left out stay when the auth type stays)',
      tags: ['apis'],
      request: { params: ApiParams, body: ApiBody },
      responses: { 200: api, 404: missing, 409: taken },
      handler: async ({ params, body }, req) =>
        toApiResponse(await apis.update(await actor(req, params.workspaceId), params.apiId, body)),
    }),
    defineRoute({
      method: 'delete',
      path: `${apisPath}/:apiId`,
      summary: 'Delete an API with its endpoints',
      tags: ['apis'],
      request: { params: ApiParams },
      responses: { 200: { description: 'Deleted', schema: Deleted }, 404: missing },
      handler: async ({ params }, req) => {
        await apis.remove(await actor(req, params.workspaceId), params.apiId);
        return { deleted: true };
      },
    }),
    defineRoute({
      method: 'get',
      path: endpoints,
      summary: "The API's endpoints",
      tags: ['apis'],
      request: { params: ApiParams, query: Paging },
      responses: {
        200: { description: 'A page of endpoints', schema: EndpointList },
        404: missing,
      },
      handler: async ({ params, query }, req) => {
        const { rows, total } = await apis.endpoints(
          await actor(req, params.workspaceId),
          params.apiId,
          query,
        );
        return { data: rows.map(toEndpointResponse), total, ...query };
      },
    }),
    defineRoute({
      method: 'post',
      path: endpoints,
      summary: 'Describe an endpoint: method, path, the parameters a model may fill in',
      tags: ['apis'],
      successStatus: 201,
      request: { params: ApiParams, body: EndpointBody },
      responses: { 201: endpoint, 404: missing, 409: taken },
      handler: async ({ params, body }, req) =>
        toEndpointResponse(
          await apis.createEndpoint(await actor(req, params.workspaceId), params.apiId, body),
        ),
    }),
    defineRoute({
      method: 'get',
      path: `${endpoints}/:endpointId`,
      summary: 'One endpoint',
      tags: ['apis'],
      request: { params: EndpointParams },
      responses: { 200: endpoint, 404: missing },
      handler: async ({ params }, req) =>
        toEndpointResponse(
          await apis.findEndpoint(
            await actor(req, params.workspaceId),
            params.apiId,
            params.endpointId,
          ),
        ),
    }),
    defineRoute({
      method: 'patch',
      path: `${endpoints}/:endpointId`,
      summary: 'Change an endpoint',
      tags: ['apis'],
      request: { params: EndpointParams, body: EndpointPatch },
      responses: { 200: endpoint, 404: missing, 409: taken },
      handler: async ({ params, body }, req) =>
        toEndpointResponse(
          await apis.updateEndpoint(
            await actor(req, params.workspaceId),
            params.apiId,
            params.endpointId,
            body,
          ),
        ),
    }),
    defineRoute({
      method: 'delete',
      path: `${endpoints}/:endpointId`,
      summary: 'Delete an endpoint',
      tags: ['apis'],
      request: { params: EndpointParams },
      responses: { 200: { description: 'Deleted', schema: Deleted }, 404: missing },
      handler: async ({ params }, req) => {
        await apis.removeEndpoint(
          await actor(req, params.workspaceId),
          params.apiId,
          params.endpointId,
        );
        return { deleted: true };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${endpoints}/:endpointId/try`,
      summary: 'Call the endpoint through http-proxy with the given parameter values',
      description:
        "The target's answer is returned as it came (`status`, `content_type`, `body` up to 100000 characters), whatever its status; the proxy's own refusals (a forbidden target) come the same way.",
      tags: ['apis'],
      request: { params: EndpointParams, body: TryBody },
      responses: {
        200: { description: 'What the target answered', schema: TryResult },
        400: { description: 'A required parameter is missing, or an unknown one given' },
        404: missing,
        503: { description: 'http-proxy is not configured or unreachable' },
        504: { description: 'http-proxy did not answer in time' },
      },
      handler: async ({ params, body }, req) => {
        const answer = await apis.tryEndpoint(
          await actor(req, params.workspaceId),
          params.apiId,
          params.endpointId,
          body.values,
        );
        return {
          status: answer.status,
          content_type: answer.contentType,
          body: answer.body,
          truncated: answer.truncated,
        };
      },
    }),
  ];
}
