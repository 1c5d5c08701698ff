/**
 * Asks whether the caller may add knowledge to the workspace before an upload is read: a
 * stranger's (or a viewer's) 100 MiB never reach the disk, and the answer (404, 403) comes
 * before the body is taken. The decision is the workspaces module's; the handler's domain call
 * checks again.
 */
import type { RequestHandler } from 'express';
import type { CallerOf } from '../caller';
import type { Workspaces } from '../workspaces/workspaces';

export function memberFirst(workspaces: Workspaces, callerOf: CallerOf): RequestHandler {
  return function checkMemberFirst(req, _res, next) {
    const workspaceId = String(req.params.workspaceId);
    callerOf(req)
      .then((caller) => workspaces.access(workspaceId, caller.id, 'knowledge.write'))
      .then(() => next(), next);
  };
}
