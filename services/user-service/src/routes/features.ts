/** /features and /features/:featureId/sub-features. */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
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
      handler: async ({ body }) => toFeatureResponse(await features.create(body), time),
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
      handler: async ({ params, body }) =>
        toFeatureResponse(await features.update(params.featureId, body), time),
    }),
    defineRoute({
      method: 'delete',
      path: '/features/:featureId',
      summary: 'Delete a feature with its sub-features and their grants',
      tags,
      request: { params: FeatureParams },
      responses: { 200: deleted, 403: notYours, 404: missing },
      handler: async ({ params }, req) => {
        await features.remove(await actorOf(req), params.featureId);
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
      handler: async ({ params, body }) =>
        toSubFeatureResponse(await features.createSubFeature(params.featureId, body), time),
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
      handler: async ({ params, body }, req) =>
        toSubFeatureResponse(
          await features.updateSubFeature(await actorOf(req), params.featureId, params.id, body),
          time,
        ),
    }),
    defineRoute({
      method: 'delete',
      path: '/features/:featureId/sub-features/:id',
      summary: 'Delete a sub-feature and its grants',
      tags,
      request: { params: FeatureSubFeatureParams },
      responses: { 200: deleted, 403: notYours, 404: missing },
      handler: async ({ params }, req) => {
        await features.removeSubFeature(await actorOf(req), params.featureId, params.id);
        return { deleted: true as const };
      },
    }),
  ];
}
