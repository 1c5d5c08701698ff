/**
 * Who may use one knowledge resource, as a member reads or changes it: reading the list takes
 * `knowledge.read` and a resource the actor may use; replacing it is decided by the access lists
 * (`knowledge.write` or `knowledge.all`, members only).
 */
import type { AccessLists, ResourceType } from './access-lists';
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';

export function createResourceAccess(access: AccessLists, workspaces: MemberCheck) {
  return {
    async users(actor: Actor, type: ResourceType, id: string): Promise<string[]> {
      const member = await memberOf(workspaces, actor, 'knowledge.read');
      await access.requireVisible(member, type, id);
      return access.users(type, id);
    },
    async replace(
      actor: Actor,
      type: ResourceType,
      id: string,
      userIds: string[],
    ): Promise<string[]> {
      return access.replace(await memberOf(workspaces, actor), type, id, userIds);
    },
  };
}

export type ResourceAccess = ReturnType<typeof createResourceAccess>;
