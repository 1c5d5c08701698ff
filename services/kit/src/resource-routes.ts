/**
 * The routes of a collection resource — list, create, show, change, remove — declared once, so
 * every collection answers with the same statuses, shapes and documentation. The routes only turn
 * a request into a caller and one call: whether the caller may do it is the domain's decision
 * (`run` receives the caller, never a verdict).
 */
import type { Request } from 'express';
import { z } from 'zod';
import { defineRoute, type ResponseSpec, type RouteDefinition } from './route';

/** The body of every successful DELETE. */
export const Deleted = z.object({ deleted: z.literal(true) });

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
  const itemPath = `${path}${resource.item}`;
  const oneAnswer = { description: one.description, schema: one.schema };
  // A nested collection can itself be missing; a top-level one cannot.
  const collectionMissing: Record<number, ResponseSpec> = params.collection
    ? { 404: { description: missing } }
    : {};
  const answers = (extra: Answers | undefined): Record<number, ResponseSpec> =>
    Object.fromEntries(
      Object.entries(extra ?? {}).map(([status, description]) => [status, { description }]),
    );
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
  const itemRoute = (
    method: 'get' | 'patch' | 'put' | 'delete',
    summary: string,
    body: Schema | undefined,
    success: ResponseSpec,
    extra: Answers | undefined,
    run: (caller: C, params: z.output<IP>, body: unknown) => Promise<unknown>,
  ) =>
    defineRoute({
      method,
      path: itemPath,
      summary,
      tags,
      request: { params: params.item, body },
      responses: { 200: success, 404: { description: missing }, ...answers(extra) },
      handler: async (input, req) => {
        const parsed = input.params as z.output<IP>;
        return run(await callerOf(req, parsed), parsed, input.body);
      },
    });
  if (show) {
    routes.push(
      itemRoute('get', show.summary, undefined, oneAnswer, show.answers, async (caller, parsed) =>
        one.from(await show.run(caller, parsed)),
      ),
    );
  }
  if (change) {
    routes.push(
      itemRoute(
        change.method ?? 'patch',
        change.summary,
        change.body,
        oneAnswer,
        change.answers,
        async (caller, parsed, body) =>
          one.from(await change.run(caller, parsed, body as z.output<U>)),
      ),
    );
  }
  if (remove) {
    const deleted = { description: 'Deleted', schema: Deleted };
    routes.push(
      itemRoute(
        'delete',
        remove.summary,
        undefined,
        deleted,
        remove.answers,
        async (caller, parsed) => {
          await remove.run(caller, parsed);
          return { deleted: true as const };
        },
      ),
    );
  }
  return routes;
}
