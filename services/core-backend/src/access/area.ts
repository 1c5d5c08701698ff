/**
 * The access area: the routes reading and replacing who may use each kind of knowledge resource.
 * The access lists themselves (`access-lists.ts`) are built before the areas: every area's
 * service asks them.
 */
import type pg from 'pg';
import type { Area } from '../area';
import type { MemberCheck } from '../workspaces/actor';
import type { CallerOf } from '../workspaces/caller';
import { createAccessLists, type AccessLists } from './access-lists';
import { createAccessRepository, RESOURCE_TYPES } from './access-repository';
import { accessRoutes } from './access-routes';
import { createResourceAccess } from './resource-access';

/** The access lists every area's service decides with. */
export const accessListsOf = (pool: pg.Pool): AccessLists =>
  createAccessLists(createAccessRepository(pool));

export function accessArea(deps: {
  access: AccessLists;
  workspaces: MemberCheck;
  callerOf: CallerOf;
}): Area {
  const resourceAccess = createResourceAccess(deps.access, deps.workspaces);
  return {
    routes: RESOURCE_TYPES.flatMap((type) =>
      accessRoutes(type, `${type}s`, { resourceAccess, callerOf: deps.callerOf }),
    ),
  };
}
