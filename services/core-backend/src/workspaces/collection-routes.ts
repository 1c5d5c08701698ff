/**
 * The header of a workspace's collection (`/api/workspaces/:workspaceId/<segment>`): its tags,
 * path, path parameters, and the caller as the actor of the workspace in the path; and the
 * fields a change sent, as the domain names them.
 */
import type { Resource } from '@pelita/kit';
import type { z } from 'zod';
import type { Actor } from './actor';
import { actorOf, type CallerOf } from './caller';
import { WorkspaceParams } from '../http-schemas';
import { toWorkspaceResponse, WorkspaceResponse } from './schemas';

type Schema = z.ZodType<{ workspaceId: string }>;

/** The caller of a resource OPA alone decides: its answers are the same for everyone it lets in. */
export const opaDecided = (): Promise<undefined> => Promise.resolve(undefined);

/** A workspace as an item (`/:workspaceId`), for the members' routes and the administrators'. */
export const workspaceItem = {
  params: { item: WorkspaceParams },
  one: { description: 'The workspace', schema: WorkspaceResponse, from: toWorkspaceResponse },
};

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
    /** The item's path parameters: the collection's and one more (`topicId`: `/:topicId`). */
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
    params: {
      collection: spec.collection ?? (WorkspaceParams as unknown as CP),
      item: spec.params,
    },
    // The actor of the workspace the path names.
    caller: (req, params) => actorOf(callerOf, req, params.workspaceId),
    one: spec.one,
    missing: spec.missing,
  };
}

/**
 * The fields of a body that were sent, each under the domain's name for it (`{folder_id:
 * 'folderId'}`): a field left out stays out, so the domain changes only what was asked.
 */
export function sentFields<B extends object, const N extends { [K in keyof B]?: string }>(
  body: B,
  names: N,
): Renamed<B, N> {
  const sent = Object.entries(names).filter(([field]) => body[field as keyof B] !== undefined);
  const renamed = sent.map(([field, name]) => [name, body[field as keyof B]]);
  return Object.fromEntries(renamed) as Renamed<B, N>;
}

/** The fields of B that N names, under N's names, each present only when sent. */
type Renamed<B, N> = { [K in keyof N & keyof B as N[K] & string]?: Exclude<B[K], undefined> };
