/**
 * /api/workspaces/:id/databases and /apis (with /endpoints): external sources for text-to-SQL
 * and text-to-API. Reading needs `knowledge.read` and the access list; changing needs
 * `knowledge.write`.
 */
import { itemRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import type { CallerOf } from '../workspaces/caller';
import { workspaceResource } from '../workspaces/collection-routes';
import { Paging } from '../http-schemas';
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
  const missing = 'No such workspace or source (or not shared with the caller)';
  const upstream = {
    403: 'The database host is not allowed by db-proxy',
    422: 'The database refused the credentials, or has no such database',
    502: 'The database is unreachable or failed',
    503: 'db-proxy is not configured or unreachable',
    504: 'No answer in time',
  };
  const nameTaken = { 409: 'Name taken' };
  const database = workspaceResource(deps.callerOf, {
    segment: 'databases',
    params: DatabaseParams,
    one: { description: 'The database', schema: DatabaseResponse, from: toDatabaseResponse },
    missing,
  });
  const endpoint = workspaceResource(deps.callerOf, {
    segment: 'apis/:apiId/endpoints',
    tags: ['apis'],
    params: EndpointParams,
    collection: ApiParams,
    one: { description: 'The endpoint', schema: EndpointResponse, from: toEndpointResponse },
    missing,
  });
  return [
    ...resourceRoutes(
      database,
      {
        list: {
          summary: 'Databases the caller may use',
          page: { description: 'A page of databases', schema: DatabaseList },
          query: Paging,
        },
        create: {
          summary: 'Add a database (its password is sealed at rest, never returned)',
          body: DatabaseBody,
          answers: nameTaken,
        },
        show: { summary: 'One database' },
        change: {
          summary: 'Change a database (a password left out stays)',
          body: DatabasePatch,
          answers: nameTaken,
        },
        remove: { summary: 'Delete a database' },
      },
      databases,
    ),
    itemRoute(database, {
      method: 'post',
      path: '/test',
      summary: 'Test the connection, through db-proxy',
      answer: { description: 'Connected', schema: ConnectionResult },
      answers: upstream,
      run: (who, p) => databases.test(who, p.databaseId),
    }),
    itemRoute(database, {
      method: 'get',
      path: '/schema',
      summary: 'Tables and columns, through db-proxy',
      answer: { description: 'The schema', schema: SchemaResult },
      answers: upstream,
      run: (who, p) => databases.tables(who, p.databaseId),
    }),
    ...resourceRoutes(
      workspaceResource(deps.callerOf, {
        segment: 'apis',
        params: ApiParams,
        one: { description: 'The API', schema: ApiResponse, from: toApiResponse },
        missing,
      }),
      {
        list: {
          summary: 'APIs the caller may use',
          page: { description: 'A page of APIs', schema: ApiList },
          query: Paging,
        },
        create: {
          summary: 'Add an API (credentials and headers sealed at rest, never returned)',
          body: ApiBody,
          answers: nameTaken,
        },
        show: { summary: 'One API' },
        change: {
          summary: 'Replace an API (secrets left out stay when the auth type stays)',
          method: 'put',
          body: ApiBody,
          answers: nameTaken,
        },
        remove: { summary: 'Delete an API with its endpoints' },
      },
      apis,
    ),
    // An API's endpoints: the module's functions take the API too.
    ...resourceRoutes(endpoint, {
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
    }),
    itemRoute(endpoint, {
      method: 'post',
      path: '/try',
      summary: 'Call the endpoint through http-proxy with the given parameter values',
      description:
        "The target's answer is returned as it came (`status`, `content_type`, `body` up to 100000 characters), whatever its status; the proxy's own refusals (a forbidden target) come the same way.",
      body: TryBody,
      answer: { description: 'What the target answered', schema: TryResult },
      answers: {
        400: 'A required parameter is missing, or an unknown one given',
        503: 'http-proxy is not configured or unreachable',
        504: 'http-proxy did not answer in time',
      },
      run: async (who, p, { body }) => {
        const answer = await apis.tryEndpoint(who, p.apiId, p.endpointId, body.values);
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
