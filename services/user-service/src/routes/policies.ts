/** /policies: grant a sub-feature to a role, switch a grant on or off, revoke it. */
import { defineRoute, describeChanges, recordChanges, type RouteDefinition } from '@pelita/kit';
import type { Request } from 'express';
import type { Actor } from '../actor';
import type { Policies } from '../access/policies';
import { Deleted, IntId } from '../schemas/common';
import {
  GrantBody,
  PolicyListResponse,
  PolicyQuery,
  PolicyResponse,
  StatusBody,
  toPolicyInput,
  toPolicyResponse,
} from '../schemas/policies';
import type { FormatTimestamp } from '../timestamps';

export function policyRoutes(
  policies: Policies,
  actorOf: (req: Request) => Promise<Actor>,
  time: FormatTimestamp,
): RouteDefinition[] {
  const tags = ['policies'];
  const one = { description: 'The policy', schema: PolicyResponse };
  const notBelow = { description: 'The role is not below your level' };
  const missing = { description: 'No such policy' };
  return [
    defineRoute({
      method: 'get',
      path: '/policies',
      summary: 'Policies, optionally of one role',
      tags,
      request: { query: PolicyQuery },
      responses: { 200: { description: 'Policies', schema: PolicyListResponse } },
      handler: async ({ query }) => ({
        data: (await policies.list(query.role_id)).map((row) => toPolicyResponse(row, time)),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/policies/:id',
      summary: 'One policy',
      tags,
      request: { params: IntId },
      responses: { 200: one, 404: missing },
      handler: async ({ params }) => toPolicyResponse(await policies.get(params.id), time),
    }),
    defineRoute({
      method: 'post',
      path: '/policies',
      summary: 'Grant a sub-feature to a role below your level (or set the status of that grant)',
      tags,
      request: { body: GrantBody },
      responses: { 200: one, 400: { description: 'Unknown role or sub-feature' }, 403: notBelow },
      handler: async ({ body }, req, res) => {
        const actor = await actorOf(req);
        const input = toPolicyInput(body);
        // A grant of a sub-feature the role already has changes that grant's status.
        const existing = (await policies.list(input.roleId)).find(
          (policy) => policy.subFeatureId === input.subFeatureId,
        );
        const after = toPolicyResponse(await policies.grant(actor, input), time);
        recordChanges(
          res,
          describeChanges(existing ? toPolicyResponse(existing, time) : null, after),
        );
        return after;
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/policies/:id',
      summary: 'Switch a grant on or off',
      tags,
      request: { params: IntId, body: StatusBody },
      responses: { 200: one, 403: notBelow, 404: missing },
      handler: async ({ params, body }, req, res) => {
        const actor = await actorOf(req);
        const before = toPolicyResponse(await policies.get(params.id), time);
        const after = toPolicyResponse(
          await policies.setStatus(actor, params.id, body.status),
          time,
        );
        recordChanges(res, describeChanges(before, after));
        return after;
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/policies/:id',
      summary: 'Revoke a grant',
      tags,
      request: { params: IntId },
      responses: { 200: { description: 'Deleted', schema: Deleted }, 403: notBelow, 404: missing },
      handler: async ({ params }, req, res) => {
        const actor = await actorOf(req);
        const before = toPolicyResponse(await policies.get(params.id), time);
        await policies.revoke(actor, params.id);
        recordChanges(res, describeChanges(before, null));
        return { deleted: true as const };
      },
    }),
  ];
}
