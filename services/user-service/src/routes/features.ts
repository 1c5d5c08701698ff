/** /features and /features/:featureId/sub-features. */
import type { RouteDefinition } from '@pelita/kit';
import type { Features } from '../access/features';
import {
  FeatureBody,
  FeatureListResponse,
  FeatureParams,
  FeatureResponse,
  FeatureSubFeatureParams,
  SubFeatureBody,
  SubFeatureListResponse,
  SubFeatureResponse,
  toFeatureResponse,
  toSubFeatureResponse,
} from '../schemas/features';
import { recordedResourceRoutes } from './recorded-resource';
import type { RouteContext } from './route-context';

export function featureRoutes(
  features: Features,
  { actorOf, time }: RouteContext,
): RouteDefinition[] {
  const tags = ['features'];
  const missing = 'No such feature or sub-feature';
  const taken = { 409: 'Name taken' };
  const notYours = { 403: 'Held by a role at or above your level, or beyond your own grants' };
  return [
    ...recordedResourceRoutes(
      actorOf,
      {
        tags,
        path: '/features',
        item: '/:featureId',
        params: { item: FeatureParams },
        one: {
          description: 'The feature',
          schema: FeatureResponse,
          from: (row) => toFeatureResponse(row, time),
        },
        missing,
      },
      {
        list: {
          summary: 'All features',
          page: { description: 'Features', schema: FeatureListResponse },
          run: () => features.list(),
        },
        show: { summary: 'One feature', run: ({ featureId }) => features.get(featureId) },
        create: {
          summary: 'Create a feature',
          body: FeatureBody,
          answers: taken,
          run: (_actor, body) => features.create(body),
        },
        change: {
          summary: 'Rename a feature',
          method: 'put',
          body: FeatureBody,
          answers: taken,
          run: (_actor, { featureId }, body) => features.update(featureId, body),
        },
        remove: {
          summary: 'Delete a feature with its sub-features and their grants',
          answers: notYours,
          run: (actor, { featureId }) => features.remove(actor, featureId),
        },
      },
    ),
    ...recordedResourceRoutes(
      actorOf,
      {
        tags,
        path: '/features/:featureId/sub-features',
        item: '/:id',
        params: { collection: FeatureParams, item: FeatureSubFeatureParams },
        one: {
          description: 'The sub-feature',
          schema: SubFeatureResponse,
          from: (row: Parameters<typeof toSubFeatureResponse>[0]) =>
            toSubFeatureResponse(row, time),
        },
        missing,
      },
      {
        list: {
          summary: 'The sub-features of a feature',
          page: { description: 'Sub-features', schema: SubFeatureListResponse },
          run: (_query, { featureId }) => features.listSubFeatures(featureId),
        },
        show: {
          summary: 'One sub-feature',
          run: ({ featureId, id }) => features.getSubFeature(featureId, id),
        },
        create: {
          summary: 'Add a sub-feature: a method and a path pattern (`*` one segment, `**` any)',
          body: SubFeatureBody,
          answers: taken,
          run: (_actor, body, { featureId }) => features.createSubFeature(featureId, body),
        },
        change: {
          summary: 'Change a sub-feature',
          method: 'put',
          body: SubFeatureBody,
          answers: { ...notYours, ...taken },
          run: (actor, { featureId, id }, body) =>
            features.updateSubFeature(actor, featureId, id, body),
        },
        remove: {
          summary: 'Delete a sub-feature and its grants',
          answers: notYours,
          run: (actor, { featureId, id }) => features.removeSubFeature(actor, featureId, id),
        },
      },
    ),
  ];
}
