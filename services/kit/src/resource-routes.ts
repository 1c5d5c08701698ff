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
  /**
   * The item's path below the collection's (`/:topicId`); unless given, the one parameter the
   * item's parameters add to the collection's.
   */
  item?: string;
  /** Path parameters of the collection (none for a top-level one) and of one item. */
  params: { collection?: CP; item: IP };
  /** Who asks, from the request and its parsed path parameters (collection's or item's). */
  caller: (req: Request, params: z.output<CP> | z.output<IP>) => Promise<C>;
  /** One item as answered: its description, schema and the mapping from the domain's row. */
  one: { description: string; schema: Schema; from: (row: Row) => unknown };
  /** Why a 404: no such item, or not one the caller may see. */
  missing: string;
}

/** A domain module with the usual functions of a collection, each taking the caller first. */
export interface CrudModule<C, Row, Q, B, U> {
  list?(this: void, caller: C, query: Q): Promise<{ rows: Row[]; total: number } | Row[]>;
  create?(this: void, caller: C, body: B): Promise<Row>;
  find?(this: void, caller: C, id: string): Promise<Row>;
  update?(this: void, caller: C, id: string, body: U): Promise<Row>;
  remove?(this: void, caller: C, id: string): Promise<unknown>;
}

/** Every operation: its summary, further answers, and its run unless the module's serves. */
interface Operation<Run> {
  summary: string;
  run?: Run;
  answers?: Answers;
}

/** The operations of a collection; an operation without `run` calls the module's function. */
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
  list?: Operation<
    (
      caller: C,
      query: z.output<Q>,
      params: z.output<CP>,
    ) => Promise<{ rows: Row[]; total: number } | Row[]>
  > & { page: { description: string; schema: Schema }; query?: Q };
  create?: Operation<(caller: C, body: z.output<B>, params: z.output<CP>) => Promise<Row>> & {
    body: B;
  };
  show?: Operation<(caller: C, params: z.output<IP>) => Promise<Row>>;
  change?: Operation<(caller: C, params: z.output<IP>, body: z.output<U>) => Promise<Row>> & {
    body: U;
    /** PUT replaces the item; PATCH (the default) changes the fields sent. */
    method?: 'patch' | 'put';
  };
  remove?: Operation<(caller: C, params: z.output<IP>) => Promise<unknown>>;
}

/** Further answers as documented responses. */
const answers = (extra: Answers | undefined): Record<number, ResponseSpec> =>
  Object.fromEntries(
    Object.entries(extra ?? {}).map(([status, description]) => [status, { description }]),
  );

/** The keys of an object schema's shape (none for anything else). */
const keysOf = (schema: Schema | undefined): string[] =>
  schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];

/** The item's path below the collection's: given, or `/:` and the one parameter it adds. */
function itemPath<C, Row, CP extends Schema, IP extends Schema>(
  resource: Resource<C, Row, CP, IP>,
): string {
  if (resource.item !== undefined) return resource.item;
  const collection = keysOf(resource.params.collection);
  const added = keysOf(resource.params.item).filter((key) => !collection.includes(key));
  if (added.length !== 1) {
    throw new Error(`${resource.path}: the item adds ${added.length} parameters; give its path`);
  }
  return `/:${added[0]}`;
}

/**
 * The operations given, as routes in the order list, create, show, change, remove. An operation
 * without `run` calls the module's list, create, find, update or remove, the item named by the
 * one parameter of the item's path (`/:topicId`).
 */
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
  module: CrudModule<C, Row, z.output<Q>, z.output<B>, z.output<U>> = {},
): RouteDefinition[] {
  const { one } = resource;
  const oneAnswer = { description: one.description, schema: one.schema };
  /** The module's function for an operation without `run`, checked as the routes are built. */
  const fromModule = <F>(fn: F | undefined, name: string): F => {
    if (!fn) throw new Error(`resourceRoutes: no run given and the module has no ${name}`);
    return fn;
  };
  /** An item's operation as the module's function of the item's id (the path's one parameter). */
  const byId = <A extends unknown[], R>(
    fn: ((caller: C, id: string, ...rest: A) => Promise<R>) | undefined,
    name: string,
  ) => {
    const path = itemPath(resource);
    const param = /^\/:(\w+)$/.exec(path)?.[1];
    if (!param) throw new Error(`resourceRoutes needs an item path of one parameter: ${path}`);
    const call = fromModule(fn, name);
    return (caller: C, params: z.output<IP>, ...rest: A) =>
      call(caller, (params as Record<string, string>)[param]!, ...rest);
  };
  /** Show, change or remove: the item's route, answering what `run` gives back as `respond` says. */
  const onItem = <R, B extends Schema = z.ZodUndefined>(
    method: HttpMethod,
    operation: Operation<unknown> & { body?: B },
    run: (caller: C, params: z.output<IP>, body: z.output<B>) => Promise<R>,
    answer: ResponseSpec,
    respond: (result: R) => unknown,
  ) =>
    itemRoute(resource, {
      ...operation,
      method,
      answer,
      run: async (caller, params, { body }) => respond(await run(caller, params, body)),
    });
  const routes: RouteDefinition[] = [];
  const { list, create, show, change, remove } = operations;

  if (list) {
    const run = list.run ?? fromModule(module.list, 'list');
    routes.push(
      collectionRoute(resource, {
        ...list,
        method: 'get',
        answer: list.page,
        run: async (caller, params, { query }) => {
          const found = await run(caller, query, params);
          if (Array.isArray(found)) return { data: found.map(one.from) };
          // The page's position, not the filters the query also held.
          const { page, limit } = query as { page?: number; limit?: number };
          return { data: found.rows.map(one.from), total: found.total, page, limit };
        },
      }),
    );
  }
  if (create) {
    const run = create.run ?? fromModule(module.create, 'create');
    routes.push(
      collectionRoute(resource, {
        ...create,
        method: 'post',
        status: 201,
        answer: oneAnswer,
        run: async (caller, params, { body }) => one.from(await run(caller, body, params)),
      }),
    );
  }
  if (show) {
    const run = show.run ?? byId(module.find, 'find');
    routes.push(onItem('get', show, run, oneAnswer, one.from));
  }
  if (change) {
    const run = change.run ?? byId(module.update, 'update');
    routes.push(onItem(change.method ?? 'patch', change, run, oneAnswer, one.from));
  }
  if (remove) {
    const run = remove.run ?? byId(module.remove, 'remove');
    const deleted = { description: 'Deleted', schema: Deleted };
    routes.push(onItem('delete', remove, run, deleted, () => ({ deleted: true as const })));
  }
  return routes;
}

/** One route of a resource beyond list, create, show, change and remove. */
export interface ResourceRoute<C, P extends Schema, Q extends Schema, B extends Schema> {
  method: HttpMethod;
  /** Below the collection's or the item's path; none for that path itself. */
  path?: string;
  /** The path parameters, when `path` adds its own (`/documents/:documentId`). */
  params?: P;
  summary: string;
  description?: string;
  query?: Q;
  body?: B;
  /** The answer, with 200 unless `status` says 201 (a creation). */
  answer: ResponseSpec;
  status?: 201;
  answers?: Answers;
  run: (
    caller: C,
    params: z.output<P>,
    input: { query: z.output<Q>; body: z.output<B> },
  ) => Promise<unknown>;
}

/**
 * One route of the resource on its items or on the collection itself: the path parameters and
 * caller there, and the 404 of whatever a parameter names.
 */
function routeOn<On extends 'item' | 'collection'>(on: On) {
  return <
    C,
    Row,
    CP extends Schema,
    IP extends Schema,
    P extends Schema = On extends 'item' ? IP : CP,
    Q extends Schema = z.ZodUndefined,
    B extends Schema = z.ZodUndefined,
  >(
    resource: Resource<C, Row, CP, IP>,
    route: ResourceRoute<C, P, Q, B>,
  ): RouteDefinition => {
    const [below, params] =
      on === 'item'
        ? [itemPath(resource), route.params ?? resource.params.item]
        : ['', route.params ?? resource.params.collection];
    const status = route.status ?? 200;
    // What a path parameter names can be missing; a top-level collection cannot.
    const missing: Record<number, ResponseSpec> = params
      ? { 404: { description: resource.missing } }
      : {};
    return defineRoute({
      method: route.method,
      path: `${resource.path}${below}${route.path ?? ''}`,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: resource.tags,
      ...(route.status ? { successStatus: route.status } : {}),
      request: { params, query: route.query, body: route.body },
      responses: { [status]: route.answer, ...missing, ...answers(route.answers) },
      handler: async (input, req) => {
        const parsed = input.params as z.output<P>;
        const caller = await resource.caller(req, parsed as z.output<CP> | z.output<IP>);
        return route.run(caller, parsed, {
          query: input.query as z.output<Q>,
          body: input.body as z.output<B>,
        });
      },
    });
  };
}

/** One route on an item (`/:documentId/reprocess`), beyond show, change and remove. */
export const itemRoute = routeOn('item');

/** One route on the collection (`/from-url`, a creation answered its own way). */
export const collectionRoute = routeOn('collection');
