/**
 * Who asks, and in which workspace: what a route hands every domain function. The function
 * decides access itself (`memberOf`), so no route holds an access decision.
 */
import type { Permission } from './permissions';
import type { Membership, Workspaces } from './workspaces';

export interface Actor {
  userId: string;
  workspaceId: string;
  /**
   * Never set: a Membership is not an Actor. Passing one would ask for the membership again and
   * drop what it carries (an app key's narrowed scope).
   */
  permissions?: never;
}

/** The part of the workspaces module that decides membership and permission. */
export type MemberCheck = Pick<Workspaces, 'access'>;

/** The actor's membership: 404 when not a member, 403 without `permission`. */
export const memberOf = (
  workspaces: MemberCheck,
  actor: Actor,
  permission?: Permission,
): Promise<Membership> => workspaces.access(actor.workspaceId, actor.userId, permission);
