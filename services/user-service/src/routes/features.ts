/** /features and /features/:featureId/sub-features. */
import { Deleted, defineRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
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
import { recorded } from './recorded';
import { noActor, type RouteContext } from './route-context';

export function featureRoutes(
  features: Features,
  { actorOf, time }: RouteContext,
): RouteDefinition[] {
  const tags = ['features'];
  const feature = { description: 'The feature', schema: FeatureResponse };
  const subFeature = { description: 'The sub-feature', schema: SubFeatureResponse };
  const missing = { description: 'No such feature or sub-feature' };
  const taken = { description: 'Name taken' };
  const deleted = { description: 'Deleted', schema: Deleted };
  const notYours = {
    description: 'Held by a role at or above your level, or beyond your own grants',
  };
  const asFeature = (row: Parameters<typeof toFeatureResponse>[0]) => toFeatureResponse(row, time);
  const asSubFeature = (row: Parameters<typeof toSubFeatureResponse>[0]) =>
    toSubFeatureResponse(row, time);
  const subFeatures = '/features/:featureId/sub-features';
  return [
    // Reads need no actor; the writes record their changes, which resourceRoutes cannot.
    ...resourceRoutes(
      {
        tags,
        path: '/features',
        item: '/:featureId',
        params: { item: FeatureParams },
        caller: noActor,
        one: { ...feature, from: asFeature },
        missing: missing.description,
      },
      {
        list: {
          summary: 'All features',
          page: { description: 'Features', schema: FeatureListResponse },
          run: () => features.list(),
        },
        show: { summary: 'One feature', run: (_caller, { featureId }) => features.get(featureId) },
      },
    ),
    defineRoute({
      method: 'post',
      path: '/features',
      summary: 'Create a feature',
      tags,
      successStatus: 201,
      request: { body: FeatureBody },
      responses: { 201: feature, 409: taken },
      handler: async ({ body }, _req, res) =>
        recorded(res, null, asFeature(await features.create(body))),
    }),
    defineRoute({
      method: 'put',
      path: '/features/:featureId',
      summary: 'Rename a feature',
      tags,
      request: { params: FeatureParams, body: FeatureBody },
      responses: { 200: feature, 404: missing, 409: taken },
      handler: async ({ params, body }, _req, res) => {
        const before = asFeature(await features.get(params.featureId));
        return recorded(res, before, asFeature(await features.update(params.featureId, body)));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/features/:featureId',
      summary: 'Delete a feature with its sub-features and their grants',
      tags,
      request: { params: FeatureParams },
      responses: { 200: deleted, 403: notYours, 404: missing },
      handler: async ({ params }, req, res) => {
        const actor = await actorOf(req);
        const before = asFeature(await features.get(params.featureId));
        await features.remove(actor, params.featureId);
        recorded(res, before, null);
        return { deleted: true as const };
      },
    }),
    ...resourceRoutes(
      {
        tags,
        path: subFeatures,
        item: '/:id',
        params: { collection: FeatureParams, item: FeatureSubFeatureParams },
        caller: noActor,
        one: { ...subFeature, from: asSubFeature },
        missing: missing.description,
      },
      {
        list: {
          summary: 'The sub-features of a feature',
          page: { description: 'Sub-features', schema: SubFeatureListResponse },
          run: (_caller, _query, { featureId }) => features.listSubFeatures(featureId),
        },
        show: {
          summary: 'One sub-feature',
          run: (_caller, { featureId, id }) => features.getSubFeature(featureId, id),
        },
      },
    ),
    defineRoute({
      method: 'post',
      path: subFeatures,
      summary: 'Add a sub-feature: a method and a path pattern (`*` one segment, `**` any)',
      tags,
      successStatus: 201,
      request: { params: FeatureParams, body: SubFeatureBody },
      responses: { 201: subFeature, 404: missing, 409: taken },
      handler: async ({ params, body }, _req, res) =>
        recorded(res, null, asSubFeature(await features.createSubFeature(params.featureId, body))),
    }),
    defineRoute({
      method: 'put',
      path: `${subFeatures}/:id`,
      summary: 'Change a sub-feature',
      tags,
      request: { params: FeatureSubFeatureParams, body: SubFeatureBody },
      responses: { 200: subFeature, 403: notYours, 404: missing, 409: taken },
      handler: async ({ params, body }, req, res) => {
        const actor = await actorOf(req);
        const before = asSubFeature(await features.getSubFeature(params.featureId, params.id));
        const after = await features.updateSubFeature(actor, params.featureId, params.id, body);
        return recorded(res, before, asSubFeature(after));
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${subFeatures}/:id`,
      summary: 'Delete a sub-feature and its grants',
      tags,
      request: { params: FeatureSubFeatureParams },
      responses: { 200: deleted, 403: notYours, 404: missing },
      handler: async ({ params }, req, res) => {
        const actor = await actorOf(req);
        const before = asSubFeature(await features.getSubFeature(params.featureId, params.id));
        await features.removeSubFeature(actor, params.featureId, params.id);
        recorded(res, before, null);
        return { deleted: true as const };
      },
    }),
  ];
}
