/**
 * /api/workspaces/:id/databases and /apis (with /endpoints): external sources for text-to-SQL
 * and text-to-API. Reading needs `knowledge.read` and the access list; changing needs
 * `knowledge.write`.
 */
import { defineRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import { actorOf, type CallerOf } from '../workspaces/caller';
import { Paging, WorkspaceParams } from '../http-schemas';
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
  const upstream = {
    403: { description: 'The database host is not allowed by db-proxy' },
    422: { description: 'The database refused the credentials, or has no such database' },
    502: { description: 'The database is unreachable or failed' },
    503: { description: 'db-proxy is not configured or unreachable' },
    504: { description: 'No answer in time' },
  };
  const dbs = '/api/workspaces/:workspaceId/databases';
  const apisPath = '/api/workspaces/:workspaceId/apis';
  const endpoints = `${apisPath}/:apiId/endpoints`;
  const nameTaken = { 409: 'Name taken' };
  const caller = (req: Parameters<CallerOf>[0], params: { workspaceId: string }) =>
    actor(req, params.workspaceId);
  return [
    ...resourceRoutes(
      {
        tags: ['databases'],
        path: dbs,
        item: '/:databaseId',
        params: { collection: WorkspaceParams, item: DatabaseParams },
        caller,
        one: { description: 'The database', schema: DatabaseResponse, from: toDatabaseResponse },
        missing: missing.description,
      },
      {
        list: {
          summary: 'Databases the caller may use',
          page: { description: 'A page of databases', schema: DatabaseList },
          query: Paging,
          run: (who, query) => databases.list(who, query),
        },
        create: {
          summary: 'Add a database (its password is sealed at rest, never returned)',
          body: DatabaseBody,
          run: (who, body) => databases.create(who, body),
          answers: nameTaken,
        },
        show: { summary: 'One database', run: (who, p) => databases.find(who, p.databaseId) },
        change: {
          summary: 'Change a database (a password left out stays)',
          body: DatabasePatch,
          run: (who, p, body) => databases.update(who, p.databaseId, body),
          answers: nameTaken,
        },
        remove: {
          summary: 'Delete a database',
          run: (who, p) => databases.remove(who, p.databaseId),
        },
      },
    ),
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
    ...resourceRoutes(
      {
        tags: ['apis'],
        path: apisPath,
        item: '/:apiId',
        params: { collection: WorkspaceParams, item: ApiParams },
        caller,
        one: { description: 'The API', schema: ApiResponse, from: toApiResponse },
        missing: missing.description,
      },
      {
        list: {
          summary: 'APIs the caller may use',
          page: { description: 'A page of APIs', schema: ApiList },
          query: Paging,
          run: (who, query) => apis.list(who, query),
        },
        create: {
          summary: 'Add an API (credentials and headers sealed at rest, never returned)',
          body: ApiBody,
          run: (who, body) => apis.create(who, body),
          answers: nameTaken,
        },
        show: { summary: 'One API', run: (who, p) => apis.find(who, p.apiId) },
        change: {
          summary: 'Replace an API (secrets left out stay when the auth type stays)',
          method: 'put',
          body: ApiBody,
          run: (who, p, body) => apis.update(who, p.apiId, body),
          answers: nameTaken,
        },
        remove: {
          summary: 'Delete an API with its endpoints',
          run: (who, p) => apis.remove(who, p.apiId),
        },
      },
    ),
    ...resourceRoutes(
      {
        tags: ['apis'],
        path: endpoints,
        item: '/:endpointId',
        params: { collection: ApiParams, item: EndpointParams },
        caller,
        one: { description: 'The endpoint', schema: EndpointResponse, from: toEndpointResponse },
        missing: missing.description,
      },
      {
        list: {
          summary: "The API's endpoints",
          page: { description: 'A page of endpoints', schema: EndpointList },
          query: Paging,
          run: (who, query, p) => apis.endpoints(who, p.apiId, query),
        },
        create: {
          summary: 'Describe an endpoint: method, path, the parameters a model may fill in',
          body: EndpointBody,
          run: (who, body, p) => apis.createEndpoint(who, p.apiId, body),
          answers: nameTaken,
        },
        show: {
          summary: 'One endpoint',
          run: (who, p) => apis.findEndpoint(who, p.apiId, p.endpointId),
        },
        change: {
          summary: 'Change an endpoint',
          body: EndpointPatch,
          run: (who, p, body) => apis.updateEndpoint(who, p.apiId, p.endpointId, body),
          answers: nameTaken,
        },
        remove: {
          summary: 'Delete an endpoint',
          run: (who, p) => apis.removeEndpoint(who, p.apiId, p.endpointId),
        },
      },
    ),
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
