/** /features and /features/:featureId/sub-features. */
import { defineRoute, describeChanges, recordChanges, type RouteDefinition } from '@pelita/kit';
import type { Request } from 'express';
import type { Features } from '../access/features';
import type { Actor } from '../actor';
import { Deleted } from '../schemas/common';
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
import type { FormatTimestamp } from '../timestamps';

export function featureRoutes(
  features: Features,
  actorOf: (req: Request) => Promise<Actor>,
  time: FormatTimestamp,
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
  return [
    defineRoute({
      method: 'get',
      path: '/features',
      summary: 'All features',
      tags,
      responses: { 200: { description: 'Features', schema: FeatureListResponse } },
      handler: async () => ({
        data: (await features.list()).map((row) => toFeatureResponse(row, time)),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/features',
      summary: 'Create a feature',
      tags,
      successStatus: 201,
      request: { body: FeatureBody },
      responses: { 201: feature, 409: taken },
      handler: async ({ body }, _req, res) => {
        const created = toFeatureResponse(await features.create(body), time);
        recordChanges(res, describeChanges(null, created));
        return created;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/features/:featureId',
      summary: 'One feature',
      tags,
      request: { params: FeatureParams },
      responses: { 200: feature, 404: missing },
      handler: async ({ params }) => toFeatureResponse(await features.get(params.featureId), time),
    }),
    defineRoute({
      method: 'put',
      path: '/features/:featureId',
      summary: 'Rename a feature',
      tags,
      request: { params: FeatureParams, body: FeatureBody },
      responses: { 200: feature, 404: missing, 409: taken },
      handler: async ({ params, body }, _req, res) => {
        const before = toFeatureResponse(await features.get(params.featureId), time);
        const after = toFeatureResponse(await features.update(params.featureId, body), time);
        recordChanges(res, describeChanges(before, after));
        return after;
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
        const before = toFeatureResponse(await features.get(params.featureId), time);
        await features.remove(actor, params.featureId);
        recordChanges(res, describeChanges(before, null));
        return { deleted: true as const };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/features/:featureId/sub-features',
      summary: 'The sub-features of a feature',
      tags,
      request: { params: FeatureParams },
      responses: {
        200: { description: 'Sub-features', schema: SubFeatureListResponse },
        404: missing,
      },
      handler: async ({ params }) => ({
        data: (await features.listSubFeatures(params.featureId)).map((row) =>
          toSubFeatureResponse(row, time),
        ),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/features/:featureId/sub-features',
      summary: 'Add a sub-feature: a method and a path pattern (`*` one segment, `**` any)',
      tags,
      successStatus: 201,
      request: { params: FeatureParams, body: SubFeatureBody },
      responses: { 201: subFeature, 404: missing, 409: taken },
      handler: async ({ params, body }, _req, res) => {
        const created = toSubFeatureResponse(
          await features.createSubFeature(params.featureId, body),
          time,
        );
        recordChanges(res, describeChanges(null, created));
        return created;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/features/:featureId/sub-features/:id',
      summary: 'One sub-feature',
      tags,
      request: { params: FeatureSubFeatureParams },
      responses: { 200: subFeature, 404: missing },
      handler: async ({ params }) =>
        toSubFeatureResponse(await features.getSubFeature(params.featureId, params.id), time),
    }),
    defineRoute({
      method: 'put',
      path: '/features/:featureId/sub-features/:id',
      summary: 'Change a sub-feature',
      tags,
      request: { params: FeatureSubFeatureParams, body: SubFeatureBody },
      responses: { 200: subFeature, 403: notYours, 404: missing, 409: taken },
      handler: async ({ params, body }, req, res) => {
        const actor = await actorOf(req);
        const before = toSubFeatureResponse(
          await features.getSubFeature(params.featureId, params.id),
          time,
        );
        const after = toSubFeatureResponse(
          await features.updateSubFeature(actor, params.featureId, params.id, body),
          time,
        );
        recordChanges(res, describeChanges(before, after));
        return after;
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/features/:featureId/sub-features/:id',
      summary: 'Delete a sub-feature and its grants',
      tags,
      request: { params: FeatureSubFeatureParams },
      responses: { 200: deleted, 403: notYours, 404: missing },
      handler: async ({ params }, req, res) => {
        const actor = await actorOf(req);
        const before = toSubFeatureResponse(
          await features.getSubFeature(params.featureId, params.id),
          time,
        );
        await features.removeSubFeature(actor, params.featureId, params.id);
        recordChanges(res, describeChanges(before, null));
        return { deleted: true as const };
      },
    }),
  ];
}
