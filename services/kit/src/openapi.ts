/** Builds the OpenAPI 3.0 document from the route definitions, so docs and validation agree. */
import { z } from 'zod';
import type { RouteDefinition } from './route';

export interface ApiInfo {
  title: string;
  version: string;
  description?: string;
}

type JsonSchema = Record<string, unknown>;

export interface OpenApiDocument {
  openapi: '3.0.3';
  info: ApiInfo;
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, unknown>;
}

export interface DocumentOptions {
  /** Body of the answers the kit gives on its own (400, 401, 403, 413). */
  errorSchema: z.ZodType;
  /** Routes behind the service's guard: documented with bearer security, 401 and 403. */
  isGuarded?: (route: RouteDefinition) => boolean;
}

export function buildOpenApiDocument(
  info: ApiInfo,
  routes: RouteDefinition[],
  { errorSchema, isGuarded = () => false }: DocumentOptions,
): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const guarded = isGuarded(route);
    paths[path] ??= {};
    paths[path][route.method] = {
      ...operation(withKitResponses(route, errorSchema, guarded)),
      ...(guarded ? { security: [{ bearerAuth: [] }] } : {}),
    };
  }
  const anyGuarded = routes.some(isGuarded);
  return {
    openapi: '3.0.3',
    info,
    paths,
    ...(anyGuarded
      ? {
          components: {
            securitySchemes: {
              bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
            },
          },
        }
      : {}),
  };
}

/** Adds the answers the kit gives on its own unless the route documents them itself. */
function withKitResponses(
  route: RouteDefinition,
  errorSchema: z.ZodType,
  guarded: boolean,
): RouteDefinition {
  const request = route.request ?? {};
  const responses = { ...route.responses };
  errorSchema = route.errors?.schema ?? errorSchema;
  if (request.body || request.query || request.params || request.headers) {
    responses[400] ??= { description: 'Invalid request', schema: errorSchema };
  }
  if (guarded) {
    responses[401] ??= { description: 'No valid access token or session', schema: errorSchema };
    responses[403] ??= { description: 'Not granted by the access policy', schema: errorSchema };
    responses[503] ??= { description: 'The policy engine did not answer', schema: errorSchema };
  }
  if (request.body) responses[413] ??= { description: 'Body too large', schema: errorSchema };
  return { ...route, responses };
}

function operation(route: RouteDefinition): Record<string, unknown> {
  const request = route.request ?? {};
  const parameters = [
    ...parametersOf(request.params, 'path'),
    ...parametersOf(request.query, 'query'),
    ...parametersOf(request.headers, 'header'),
  ];
  const responses: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    responses[status] = {
      description: spec.description,
      ...(spec.schema
        ? {
            content: {
              [spec.contentType ?? 'application/json']: { schema: toSchema(spec.schema, 'output') },
            },
          }
        : {}),
    };
  }
  return {
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.tags ? { tags: route.tags } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(request.body
      ? {
          requestBody: {
            required: !request.body.safeParse(undefined).success,
            content: {
              [request.bodyContentType ?? 'application/json']: {
                schema: toSchema(request.body, 'input'),
              },
            },
          },
        }
      : {}),
    responses,
  };
}

function parametersOf(schema: z.ZodType | undefined, location: 'path' | 'query' | 'header') {
  if (!schema) return [];
  const object = toSchema(schema, 'input');
  const properties = (object.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((object.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...propertySchema } = property;
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: propertySchema,
    };
  });
}

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' });
  delete json.$schema;
  return json;
}
