/**
 * Features and their sub-features (method + path pattern): what policies grant to roles.
 * Changing a sub-feature changes what every role granted it may do, so an actor may change or
 * remove only sub-features no role at or above their own level holds, and may point one only at
 * requests within their own grants (else editing a sub-feature granted to a lower role would
 * hand it more than the actor has).
 */
import { conflict, forbidden, notFound, type Db } from '@pelita/kit';
import { assertBelow, type Actor } from '../actor';
import type { RoleDataChanges } from '../policy-sync/role-data-changes';
import { found } from '../db/found';
import { isUniqueViolation } from '../db/unique-violation';
import type { AccessRepository, Feature, SubFeatureFields, SubFeature } from './access-repository';
import { heldCovers } from './grant-coverage';

export interface FeatureInput {
  name: string;
  label: string;
}

export function createFeatures(access: AccessRepository, changes: RoleDataChanges) {
  const duplicate = (what: string) => (err: unknown) => {
    throw isUniqueViolation(err) ? conflict(`A ${what} with this name already exists`) : err;
  };
  const feature = async (id: number): Promise<Feature> =>
    found(await access.findFeature(id), `Feature ${id}`);
  async function subFeature(featureId: number, id: number): Promise<SubFeature> {
    const row = await access.findSubFeature(id);
    if (!row || row.featureId !== featureId) {
      throw notFound(`Sub-feature ${id} of feature ${featureId} not found`);
    }
    return row;
  }
  // Every change here can change grant records (their id, name, label, method, path).
  const change = <T>(work: (db: Db) => Promise<T>) => changes.apply(['role-grants'], work);
  async function assertNotHeldAbove(actor: Actor, subFeatureIds: number[]): Promise<void> {
    const level = await access.topHolderLevel(subFeatureIds);
    if (level !== undefined) assertBelow(actor, level, 'sub-features held by roles');
  }
  async function assertWithinOwn(actor: Actor, input: SubFeatureFields): Promise<void> {
    const held = (await access.listPolicies(actor.roleId)).filter((policy) => policy.status);
    if (!heldCovers(held, input))
      throw forbidden(`${input.method} ${input.path} is not within your own grants`);
  }

  return {
    list: () => access.listFeatures(),
    get: feature,
    async create(input: FeatureInput) {
      return change((db) => access.insertFeature(input.name, input.label, db)).catch(
        duplicate('feature'),
      );
    },
    async update(id: number, input: FeatureInput) {
      await feature(id);
      const row = await change((db) => access.updateFeature(id, input.name, input.label, db)).catch(
        duplicate('feature'),
      );
      return found(row, `Feature ${id}`);
    },
    async remove(actor: Actor, id: number) {
      await feature(id);
      const subFeatures = await access.listSubFeatures(id);
      await assertNotHeldAbove(
        actor,
        subFeatures.map((row) => row.id),
      );
      await change((db) => access.removeFeature(id, db));
    },

    async listSubFeatures(featureId: number) {
      await feature(featureId);
      return access.listSubFeatures(featureId);
    },
    getSubFeature: subFeature,
    async createSubFeature(featureId: number, input: SubFeatureFields) {
      await feature(featureId);
      return change((db) => access.insertSubFeature(featureId, input, db)).catch(
        duplicate('sub-feature'),
      );
    },
    async updateSubFeature(actor: Actor, featureId: number, id: number, input: SubFeatureFields) {
      await subFeature(featureId, id);
      await assertNotHeldAbove(actor, [id]);
      await assertWithinOwn(actor, input);
      const row = await change((db) => access.updateSubFeature(id, input, db)).catch(
        duplicate('sub-feature'),
      );
      return found(row, `Sub-feature ${id}`);
    },
    async removeSubFeature(actor: Actor, featureId: number, id: number) {
      await subFeature(featureId, id);
      await assertNotHeldAbove(actor, [id]);
      await change((db) => access.removeSubFeature(id, db));
    },
  };
}

export type Features = ReturnType<typeof createFeatures>;
