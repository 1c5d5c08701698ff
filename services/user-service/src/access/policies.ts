/** Policies: a role is granted a sub-feature (of a feature) with a status; only for roles below the actor. */
import { badRequest, notFound } from '@pelita/kit';
import type { SyncTrigger } from '../policy-sync/sync-trigger';
import type { RoleRepository } from '../roles/role-repository';
import type { AccessRepository, Policy } from './access-repository';
import { assertBelow, type Actor } from '../actor';

export interface PolicyInput {
  roleId: number;
  subFeatureId: number;
  status: boolean;
}

export function createPolicies(
  access: AccessRepository,
  roles: RoleRepository,
  syncTrigger: SyncTrigger,
) {
  async function existing(id: number): Promise<Policy> {
    const policy = await access.findPolicy(id);
    if (!policy) throw notFound(`Policy ${id} not found`);
    return policy;
  }
  async function manageableRole(actor: Actor, roleId: number): Promise<void> {
    const role = await roles.find(roleId);
    if (!role) throw badRequest(`Role ${roleId} does not exist`);
    assertBelow(actor, role.level, 'roles');
  }

  return {
    list: (roleId?: number) => access.listPolicies(roleId),
    get: existing,

    /** Grants (or re-grants with a new status) a sub-feature to a role. */
    async grant(actor: Actor, input: PolicyInput): Promise<Policy> {
      await manageableRole(actor, input.roleId);
      if (!(await access.findSubFeature(input.subFeatureId))) {
        throw badRequest(`Sub-feature ${input.subFeatureId} does not exist`);
      }
      const id = await access.upsertPolicy(input.roleId, input.subFeatureId, input.status);
      syncTrigger.trigger('role-grants');
      return existing(id);
    },

    async setStatus(actor: Actor, id: number, status: boolean): Promise<Policy> {
      await manageableRole(actor, (await existing(id)).roleId);
      await access.setPolicyStatus(id, status);
      syncTrigger.trigger('role-grants');
      return existing(id);
    },

    async revoke(actor: Actor, id: number): Promise<void> {
      await manageableRole(actor, (await existing(id)).roleId);
      await access.removePolicy(id);
      syncTrigger.trigger('role-grants');
    },
  };
}

export type Policies = ReturnType<typeof createPolicies>;
