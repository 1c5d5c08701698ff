/** /policies: grant a sub-feature to a role, switch a grant on or off, revoke it. */
import { Deleted, defineRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import type { Policies } from '../access/policies';
import { IntId } from '../schemas/common';
import {
  GrantBody,
  PolicyListResponse,
  PolicyQuery,
  PolicyResponse,
  StatusBody,
  toPolicyInput,
  toPolicyResponse,
} from '../schemas/policies';
import { recorded } from './recorded';
import { noActor, type RouteContext } from './route-context';

export function policyRoutes(
  policies: Policies,
  { actorOf, time }: RouteContext,
): RouteDefinition[] {
  const tags = ['policies'];
  const one = { description: 'The policy', schema: PolicyResponse };
  const notBelow = { description: 'The role is not below your level' };
  const missing = { description: 'No such policy' };
  const asAnswer = (row: Parameters<typeof toPolicyResponse>[0]) => toPolicyResponse(row, time);
  return [
    // Reads need no actor; the writes record their changes, which resourceRoutes cannot.
    ...resourceRoutes(
      {
        tags,
        path: '/policies',
        item: '/:id',
        params: { item: IntId },
        caller: noActor,
        one: { ...one, from: asAnswer },
        missing: missing.description,
      },
      {
        list: {
          summary: 'Policies, optionally of one role',
          page: { description: 'Policies', schema: PolicyListResponse },
          query: PolicyQuery,
          run: (_caller, query) => policies.list(query.role_id),
        },
        show: { summary: 'One policy', run: (_caller, { id }) => policies.get(id) },
      },
    ),
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
        const after = asAnswer(await policies.grant(actor, input));
        return recorded(res, existing ? asAnswer(existing) : null, after);
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
        const before = asAnswer(await policies.get(params.id));
        return recorded(
          res,
          before,
          asAnswer(await policies.setStatus(actor, params.id, body.status)),
        );
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
        const before = asAnswer(await policies.get(params.id));
        await policies.revoke(actor, params.id);
        recorded(res, before, null);
        return { deleted: true as const };
      },
    }),
  ];
}
