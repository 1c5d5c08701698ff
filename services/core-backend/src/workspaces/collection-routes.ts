/**
 * The header of a workspace's collection (`/api/workspaces/:workspaceId/<segment>`): its tags,
 * path, path parameters, and the caller as the actor of the workspace in the path.
 */
import type { Resource } from '@pelita/kit';
import type { Request } from 'express';
import type { z } from 'zod';
import type { Actor } from './actor';
import { actorOf, type CallerOf } from './caller';
import { WorkspaceParams } from '../http-schemas';

type Schema = z.ZodType<{ workspaceId: string }>;

/** The actor of the workspace a request's path names. */
export const actorFor =
  (callerOf: CallerOf) =>
  (req: Request, params: { workspaceId: string }): Promise<Actor> =>
    actorOf(callerOf, req, params.workspaceId);

export function workspaceResource<
  Row,
  IP extends Schema,
  CP extends Schema = typeof WorkspaceParams,
>(
  callerOf: CallerOf,
  spec: {
    /** Below the workspace: `topics`, `apis/:apiId/endpoints`. */
    segment: string;
    /** `[segment]` unless given. */
    tags?: string[];
    /** The item's path below the collection (`/:topicId`) and the item's path parameters. */
    item: string;
    params: IP;
    /** The collection's path parameters, for one nested below an item. */
    collection?: CP;
    one: Resource<Actor, Row, CP, IP>['one'];
    missing: string;
  },
): Resource<Actor, Row, CP, IP> {
  return {
    tags: spec.tags ?? [spec.segment],
    path: `/api/workspaces/:workspaceId/${spec.segment}`,
    item: spec.item,
    params: {
      collection: spec.collection ?? (WorkspaceParams as unknown as CP),
      item: spec.params,
    },
    caller: actorFor(callerOf),
    one: spec.one,
    missing: spec.missing,
  };
}
