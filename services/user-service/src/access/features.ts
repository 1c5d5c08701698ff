/** Features and their sub-features (method + path pattern): what policies grant to roles. */
import { conflict, notFound } from '@pelita/kit';
import type { SyncTrigger } from '../policy-sync/sync-trigger';
import { isUniqueViolation } from '../db/unique-violation';
import type { AccessRepository, Feature, SubFeatureFields, SubFeature } from './access-repository';

export interface FeatureInput {
  name: string;
  label: string;
}

export function createFeatures(access: AccessRepository, syncTrigger: SyncTrigger) {
  const duplicate = (what: string) => (err: unknown) => {
    throw isUniqueViolation(err) ? conflict(`A ${what} with this name already exists`) : err;
  };
  async function feature(id: number): Promise<Feature> {
    const found = await access.findFeature(id);
    if (!found) throw notFound(`Feature ${id} not found`);
    return found;
  }
  async function subFeature(featureId: number, id: number): Promise<SubFeature> {
    const found = await access.findSubFeature(id);
    if (!found || found.featureId !== featureId) {
      throw notFound(`Sub-feature ${id} of feature ${featureId} not found`);
    }
    return found;
  }
  const changed = () => syncTrigger.trigger('role-grants');

  return {
    list: () => access.listFeatures(),
    get: feature,
    async create(input: FeatureInput) {
      const row = await access.insertFeature(input.name, input.label).catch(duplicate('feature'));
      changed();
      return row;
    },
    async update(id: number, input: FeatureInput) {
      await feature(id);
      const row = await access
        .updateFeature(id, input.name, input.label)
        .catch(duplicate('feature'));
      if (!row) throw notFound(`Feature ${id} not found`);
      changed();
      return row;
    },
    async remove(id: number) {
      await feature(id);
      await access.removeFeature(id);
      changed();
    },

    async listSubFeatures(featureId: number) {
      await feature(featureId);
      return access.listSubFeatures(featureId);
    },
    getSubFeature: subFeature,
    async createSubFeature(featureId: number, input: SubFeatureFields) {
      await feature(featureId);
      const row = await access.insertSubFeature(featureId, input).catch(duplicate('sub-feature'));
      changed();
      return row;
    },
    async updateSubFeature(featureId: number, id: number, input: SubFeatureFields) {
      await subFeature(featureId, id);
      const row = await access.updateSubFeature(id, input).catch(duplicate('sub-feature'));
      if (!row) throw notFound(`Sub-feature ${id} not found`);
      changed();
      return row;
    },
    async removeSubFeature(featureId: number, id: number) {
      await subFeature(featureId, id);
      await access.removeSubFeature(id);
      changed();
    },
  };
}

export type Features = ReturnType<typeof createFeatures>;
