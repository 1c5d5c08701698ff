/**
 * The routes of a collection resource — list, create, show, change, remove — declared once, so
 * every collection answers with the same statuses, shapes and documentation. The routes only turn
 * a request into a caller and one call: whether the caller may do it is the domain's decision
 * (`run` receives the caller, never a verdict).
 */
import type { Request } from 'express';
import { z } from 'zod';
import { defineRoute, type HttpMethod, type ResponseSpec, type RouteDefinition } from './route';

/** The body of every successful DELETE. */
export const Deleted = z.object({ deleted: z.literal(true) });

/** Which page of a list, as every list takes it in its query. */
export const Paging = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type Paging = z.infer<typeof Paging>;

/** A page of results, as a list answers it. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
  });
}

type Schema = z.ZodType;
/** Further documented answers of one operation: status → description. */
type Answers = Record<number, string>;

export interface Resource<C, Row, CP extends Schema, IP extends Schema> {
  tags: string[];
  /** The collection's path (`/api/workspaces/:workspaceId/topics`). */
  path: string;
  /** The item's path, below the collection's (`/:topicId`). */
  item: string;
  /** Path parameters of the collection (none for a top-level one) and of one item. */
  params: { collection?: CP; item: IP };
  /** Who asks, from the request and its parsed path parameters (collection's or item's). */
  caller: (req: Request, params: z.output<CP> | z.output<IP>) => Promise<C>;
  /** One item as answered: its description, schema and the mapping from the domain's row. */
  one: { description: string; schema: Schema; from: (row: Row) => unknown };
  /** Why a 404: no such item, or not one the caller may see. */
  missing: string;
}

export interface ResourceOperations<
  C,
  Row,
  CP extends Schema,
  IP extends Schema,
  Q extends Schema,
  B extends Schema,
  U extends Schema,
> {
  /** A page (`{data, total, page, limit}` from `{rows, total}`) or every item (`{data}` from rows). */
  list?: {
    summary: string;
    page: { description: string; schema: Schema };
    query?: Q;
    run: (
      caller: C,
      query: z.output<Q>,
      params: z.output<CP>,
    ) => Promise<{ rows: Row[]; total: number } | Row[]>;
    answers?: Answers;
  };
  create?: {
    summary: string;
    body: B;
    run: (caller: C, body: z.output<B>, params: z.output<CP>) => Promise<Row>;
    answers?: Answers;
  };
  show?: {
    summary: string;
    run: (caller: C, params: z.output<IP>) => Promise<Row>;
    answers?: Answers;
  };
  change?: {
    summary: string;
    body: U;
    /** PUT replaces the item; PATCH (the default) changes the fields sent. */
    method?: 'patch' | 'put';
    run: (caller: C, params: z.output<IP>, body: z.output<U>) => Promise<Row>;
    answers?: Answers;
  };
  remove?: {
    summary: string;
    run: (caller: C, params: z.output<IP>) => Promise<unknown>;
    answers?: Answers;
  };
}

/** Further answers as documented responses. */
const answers = (extra: Answers | undefined): Record<number, ResponseSpec> =>
  Object.fromEntries(
    Object.entries(extra ?? {}).map(([status, description]) => [status, { description }]),
  );

/** The operations given, as routes in the order list, create, show, change, remove. */
export function resourceRoutes<
  C,
  Row,
  CP extends Schema = z.ZodUndefined,
  IP extends Schema = Schema,
  Q extends Schema = z.ZodUndefined,
  B extends Schema = Schema,
  U extends Schema = Schema,
>(
  resource: Resource<C, Row, CP, IP>,
  operations: ResourceOperations<C, Row, CP, IP, Q, B, U>,
): RouteDefinition[] {
  const { tags, path, params, one, missing } = resource;
  const oneAnswer = { description: one.description, schema: one.schema };
  // A nested collection can itself be missing; a top-level one cannot.
  const collectionMissing: Record<number, ResponseSpec> = params.collection
    ? { 404: { description: missing } }
    : {};
  const callerOf = (req: Request, parsed: unknown) =>
    resource.caller(req, parsed as z.output<CP> | z.output<IP>);
  const routes: RouteDefinition[] = [];
  const { list, create, show, change, remove } = operations;

  if (list) {
    routes.push(
      defineRoute({
        method: 'get',
        path,
        summary: list.summary,
        tags,
        request: { params: params.collection, query: list.query },
        responses: { 200: list.page, ...collectionMissing, ...answers(list.answers) },
        handler: async (input, req) => {
          const caller = await callerOf(req, input.params);
          const found = await list.run(
            caller,
            input.query as z.output<Q>,
            input.params as z.output<CP>,
          );
          if (Array.isArray(found)) return { data: found.map(one.from) };
          // The page's position, not the filters the query also held.
          const { page, limit } = input.query as { page?: number; limit?: number };
          return { data: found.rows.map(one.from), total: found.total, page, limit };
        },
      }),
    );
  }
  if (create) {
    routes.push(
      defineRoute({
        method: 'post',
        path,
        summary: create.summary,
        tags,
        successStatus: 201,
        request: { params: params.collection, body: create.body },
        responses: { 201: oneAnswer, ...collectionMissing, ...answers(create.answers) },
        handler: async (input, req) => {
          const caller = await callerOf(req, input.params);
          return one.from(
            await create.run(caller, input.body as z.output<B>, input.params as z.output<CP>),
          );
        },
      }),
    );
  }
  if (show) {
    routes.push(
      itemRoute(resource, {
        method: 'get',
        summary: show.summary,
        answer: oneAnswer,
        answers: show.answers,
        run: async (caller, parsed) => one.from(await show.run(caller, parsed)),
      }),
    );
  }
  if (change) {
    routes.push(
      itemRoute(resource, {
        method: change.method ?? 'patch',
        summary: change.summary,
        body: change.body,
        answer: oneAnswer,
        answers: change.answers,
        run: async (caller, parsed, { body }) => one.from(await change.run(caller, parsed, body)),
      }),
    );
  }
  if (remove) {
    routes.push(
      itemRoute(resource, {
        method: 'delete',
        summary: remove.summary,
        answer: { description: 'Deleted', schema: Deleted },
        answers: remove.answers,
        run: async (caller, parsed) => {
          await remove.run(caller, parsed);
          return { deleted: true as const };
        },
      }),
    );
  }
  return routes;
}

/**
 * One route on an item of the resource, beyond show, change and remove (`/:documentId/reprocess`):
 * the item's path parameters, its caller, and its 404 unless `answers` says otherwise.
 */
export function itemRoute<
  C,
  Row,
  CP extends Schema,
  IP extends Schema,
  Q extends Schema = z.ZodUndefined,
  B extends Schema = z.ZodUndefined,
>(
  resource: Resource<C, Row, CP, IP>,
  route: {
    method: HttpMethod;
    /** Below the item's path; none for the item itself. */
    path?: string;
    summary: string;
    description?: string;
    query?: Q;
    body?: B;
    /** The 200 answer. */
    answer: ResponseSpec;
    answers?: Answers;
    run: (
      caller: C,
      params: z.output<IP>,
      input: { query: z.output<Q>; body: z.output<B> },
    ) => Promise<unknown>;
  },
): RouteDefinition {
  return defineRoute({
    method: route.method,
    path: `${resource.path}${resource.item}${route.path ?? ''}`,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: resource.tags,
    request: { params: resource.params.item, query: route.query, body: route.body },
    responses: {
      200: route.answer,
      404: { description: resource.missing },
      ...answers(route.answers),
    },
    handler: async (input, req) => {
      const params = input.params as z.output<IP>;
      return route.run(await resource.caller(req, params), params, {
        query: input.query as z.output<Q>,
        body: input.body as z.output<B>,
      });
    },
  });
}

/** A domain module with the usual functions of a collection, each taking the caller first. */
export interface CrudModule<C, Row, Q, B, U> {
  list?(this: void, caller: C, query: Q): Promise<{ rows: Row[]; total: number } | Row[]>;
  create?(this: void, caller: C, body: B): Promise<Row>;
  find?(this: void, caller: C, id: string): Promise<Row>;
  update?(this: void, caller: C, id: string, body: U): Promise<Row>;
  remove?(this: void, caller: C, id: string): Promise<unknown>;
}

/** An operation as documented; its `run` is the module's function unless given. */
type Documented<T> = T extends { run: infer R } ? Omit<T, 'run'> & { run?: R } : never;
type Ops<
  C,
  Row,
  CP extends Schema,
  IP extends Schema,
  Q extends Schema,
  B extends Schema,
  U extends Schema,
> = Required<ResourceOperations<C, Row, CP, IP, Q, B, U>>;

/**
 * resourceRoutes over a domain module: list, create, show, change and remove call the module's
 * list, create, find, update and remove, the item named by the one parameter of `resource.item`
 * (`/:topicId`). An operation may still give its own `run` where the module differs.
 */
export function moduleRoutes<
  C,
  Row,
  CP extends Schema = z.ZodUndefined,
  IP extends Schema = Schema,
  Q extends Schema = z.ZodUndefined,
  B extends Schema = Schema,
  U extends Schema = Schema,
>(
  resource: Resource<C, Row, CP, IP>,
  module: CrudModule<C, Row, z.output<Q>, z.output<B>, z.output<U>>,
  operations: {
    [K in keyof Ops<C, Row, CP, IP, Q, B, U>]?: Documented<Ops<C, Row, CP, IP, Q, B, U>[K]>;
  },
): RouteDefinition[] {
  const param = /^\/:(\w+)$/.exec(resource.item)?.[1];
  if (!param) throw new Error(`moduleRoutes needs an item path of one parameter: ${resource.item}`);
  const idOf = (params: z.output<IP>) => (params as Record<string, string>)[param]!;
  /** The module's function of an operation left without `run`. */
  const from = <F>(fn: F | undefined, name: string): F => {
    if (!fn) throw new Error(`moduleRoutes: the module has no ${name}`);
    return fn;
  };
  const { list, create, show, change, remove } = operations;
  return resourceRoutes<C, Row, CP, IP, Q, B, U>(resource, {
    ...(list && {
      list: { run: (c, query) => from(module.list, 'list')(c, query), ...list },
    }),
    ...(create && {
      create: { run: (c, body) => from(module.create, 'create')(c, body), ...create },
    }),
    ...(show && {
      show: { run: (c, p) => from(module.find, 'find')(c, idOf(p)), ...show },
    }),
    ...(change && {
      change: {
        run: (c, p, body) => from(module.update, 'update')(c, idOf(p), body),
        ...change,
      },
    }),
    ...(remove && {
      remove: { run: (c, p) => from(module.remove, 'remove')(c, idOf(p)), ...remove },
    }),
  });
}
