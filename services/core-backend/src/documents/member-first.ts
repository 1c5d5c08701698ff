/**
 * Asks whether the caller may add to the workspace before an upload is read: a stranger's (or a
 * viewer's) 100 MiB never reach the disk, and the answer (404, 403) comes before the body is
 * taken. The decision is the area's (`mayAdd`); the handler's domain call decides again.
 */
import { parseRequest } from '@pelita/kit';
import type { RequestHandler } from 'express';
import { WorkspaceParams } from '../http-schemas';
import type { Actor } from '../workspaces/actor';
import { actorOf, type CallerOf } from '../workspaces/caller';

export function memberFirst(
  mayAdd: (actor: Actor) => Promise<void>,
  callerOf: CallerOf,
): RequestHandler {
  return function checkMemberFirst(req, _res, next) {
    // The route's own 400 for a malformed id, before it reaches a query (a 500 there).
    Promise.resolve()
      .then(() => parseRequest({ params: WorkspaceParams }, req))
      .then(() => actorOf(callerOf, req, String(req.params.workspaceId)))
      .then(mayAdd)
      .then(() => next(), next);
  };
}
