/**
 * Policies: a role is granted a sub-feature (of a feature) with a status; only for roles below
 * the actor, and only what the actor's own role holds (switched on): nobody hands out more than
 * they have.
 */
import { badRequest, forbidden } from '@pelita/kit';
import { found } from '../db/found';
import type { RoleDataChanges } from '../policy-sync/role-data-changes';
import type { RoleRepository } from '../roles/role-repository';
import type { AccessRepository, Policy } from './access-repository';
import { assertBelow, type Actor } from '../actor';
import { heldCovers } from './grant-coverage';

export interface PolicyInput {
  roleId: number;
  subFeatureId: number;
  status: boolean;
}

export function createPolicies(
  access: AccessRepository,
  roles: RoleRepository,
  changes: RoleDataChanges,
) {
  const existing = async (id: number): Promise<Policy> =>
    found(await access.findPolicy(id), `Policy ${id}`);
  async function manageableRole(actor: Actor, roleId: number): Promise<void> {
    const role = await roles.find(roleId);
    if (!role) throw badRequest(`Role ${roleId} does not exist`);
    assertBelow(actor, role.level, 'roles');
  }
  async function assertHeld(actor: Actor, subFeatureId: number): Promise<void> {
    const wanted = await access.findSubFeature(subFeatureId);
    if (!wanted) throw badRequest(`Sub-feature ${subFeatureId} does not exist`);
    const held = (await access.listPolicies(actor.roleId)).filter((policy) => policy.status);
    if (!heldCovers(held, wanted)) {
      throw forbidden(
        `Sub-feature ${wanted.name} (${wanted.method} ${wanted.path}) is not within your own grants`,
      );
    }
  }

  return {
    list: (roleId?: number) => access.listPolicies(roleId),
    get: existing,

    /** Grants (or re-grants with a new status) a sub-feature to a role. */
    async grant(actor: Actor, input: PolicyInput): Promise<Policy> {
      await manageableRole(actor, input.roleId);
      // Switching a grant off hands out nothing; switching it on must be within the actor's own.
      if (input.status) await assertHeld(actor, input.subFeatureId);
      else if (!(await access.findSubFeature(input.subFeatureId))) {
        throw badRequest(`Sub-feature ${input.subFeatureId} does not exist`);
      }
      const id = await changes.apply(['role-grants'], (db) =>
        access.upsertPolicy(input.roleId, input.subFeatureId, input.status, db),
      );
      return existing(id);
    },

    async setStatus(actor: Actor, id: number, status: boolean): Promise<Policy> {
      const policy = await existing(id);
      await manageableRole(actor, policy.roleId);
      if (status) await assertHeld(actor, policy.subFeatureId);
      await changes.apply(['role-grants'], (db) => access.setPolicyStatus(id, status, db));
      return existing(id);
    },

    async revoke(actor: Actor, id: number): Promise<void> {
      await manageableRole(actor, (await existing(id)).roleId);
      await changes.apply(['role-grants'], (db) => access.removePolicy(id, db));
    },
  };
}

export type Policies = ReturnType<typeof createPolicies>;
