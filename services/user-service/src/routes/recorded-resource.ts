/**
 * The routes of a collection whose writes the activity log records field by field: the kit's
 * resourceRoutes, with the reads open to whoever the guard let in, and every write run by the
 * acting user and recorded as what differs between the item's answer before and after it.
 */
import {
  resourceRoutes,
  type Resource,
  type ResourceOperations,
  type RouteDefinition,
} from '@pelita/kit';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { Actor } from '../actor';
import { recorded } from './recorded';

type Schema = z.ZodType;

/** The kit's resource without its caller: one item is answered, and recorded, as an object. */
export type RecordedResource<Row, CP extends Schema, IP extends Schema> = Omit<
  Resource<Request, Row, CP, IP>,
  'caller' | 'one'
> & { one: { description: string; schema: Schema; from: (row: Row) => Record<string, unknown> } };

/** One of the kit's operations, whose run is given these arguments instead of the kit's caller. */
type RunWith<Operation, Args extends unknown[], Result> = Omit<NonNullable<Operation>, 'run'> & {
  run: (...args: Args) => Promise<Result>;
};

/** The list, show and the writes given, as the kit's resourceRoutes declares them. */
export function recordedResourceRoutes<
  Row,
  CP extends Schema,
  IP extends Schema,
  Q extends Schema,
  B extends Schema,
  U extends Schema,
>(
  actorOf: (req: Request) => Promise<Actor>,
  resource: RecordedResource<Row, CP, IP>,
  // The kit's operations; the reads are run with their parameters alone, the writes by the actor.
  {
    list,
    show,
    create,
    change,
    remove,
  }: {
    list?: RunWith<
      ResourceOperations<Request, Row, CP, IP, Q, B, U>['list'],
      [query: z.output<Q>, params: z.output<CP>],
      { rows: Row[]; total: number } | Row[]
    >;
    /** One item; what a change or a removal records as the item before it. */
    show: RunWith<
      ResourceOperations<Request, Row, CP, IP, Q, B, U>['show'],
      [params: z.output<IP>],
      Row
    >;
    create?: RunWith<
      ResourceOperations<Request, Row, CP, IP, Q, B, U>['create'],
      [actor: Actor, body: z.output<B>, params: z.output<CP>],
      Row
    >;
    change?: RunWith<
      ResourceOperations<Request, Row, CP, IP, Q, B, U>['change'],
      [actor: Actor, params: z.output<IP>, body: z.output<U>],
      Row
    >;
    remove?: RunWith<
      ResourceOperations<Request, Row, CP, IP, Q, B, U>['remove'],
      [actor: Actor, params: z.output<IP>],
      unknown
    >;
  },
): RouteDefinition[] {
  const answer = (row: Row | null) => (row === null ? null : resource.one.from(row));
  const record = (req: Request, before: Row | null, after: Row | null) =>
    recorded(req.res as Response, answer(before), answer(after));
  return resourceRoutes<Request, Row, CP, IP, Q, B, U>(
    // Each run gets the request itself: the writes read their actor from it and record their
    // changes on its response; the reads need neither.
    { ...resource, caller: (req) => Promise.resolve(req) },
    {
      list: list && { ...list, run: (_req, query, params) => list.run(query, params) },
      show: { ...show, run: (_req, params) => show.run(params) },
      create: create && {
        ...create,
        run: async (req, body, params) => {
          const created = await create.run(await actorOf(req), body, params);
          record(req, null, created);
          return created;
        },
      },
      change: change && {
        ...change,
        run: async (req, params, body) => {
          const actor = await actorOf(req);
          const before = await show.run(params);
          const after = await change.run(actor, params, body);
          record(req, before, after);
          return after;
        },
      },
      remove: remove && {
        ...remove,
        run: async (req, params) => {
          const actor = await actorOf(req);
          const before = await show.run(params);
          await remove.run(actor, params);
          record(req, before, null);
        },
      },
    },
  );
}
