/** /policies: grant a sub-feature to a role, switch a grant on or off, revoke it. */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
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
import { recordedResourceRoutes } from './recorded-resource';
import type { RouteContext } from './route-context';

export function policyRoutes(
  policies: Policies,
  { actorOf, time }: RouteContext,
): RouteDefinition[] {
  const tags = ['policies'];
  const one = { description: 'The policy', schema: PolicyResponse };
  const notBelow = 'The role is not below your level';
  const asAnswer = (row: Parameters<typeof toPolicyResponse>[0]) => toPolicyResponse(row, time);
  return [
    ...recordedResourceRoutes(
      actorOf,
      {
        tags,
        path: '/policies',
        item: '/:id',
        params: { item: IntId },
        one: { ...one, from: asAnswer },
        missing: 'No such policy',
      },
      {
        list: {
          summary: 'Policies, optionally of one role',
          page: { description: 'Policies', schema: PolicyListResponse },
          query: PolicyQuery,
          run: (query) => policies.list(query.role_id),
        },
        show: { summary: 'One policy', run: ({ id }) => policies.get(id) },
        change: {
          summary: 'Switch a grant on or off',
          body: StatusBody,
          answers: { 403: notBelow },
          run: (actor, { id }, body) => policies.setStatus(actor, id, body.status),
        },
        remove: {
          summary: 'Revoke a grant',
          answers: { 403: notBelow },
          run: (actor, { id }) => policies.revoke(actor, id),
        },
      },
    ),
    // A grant answers 200, not 201: granting a sub-feature the role already has sets that
    // grant's status, so what it records as before is the grant found, if any.
    defineRoute({
      method: 'post',
      path: '/policies',
      summary: 'Grant a sub-feature to a role below your level (or set the status of that grant)',
      tags,
      request: { body: GrantBody },
      responses: {
        200: one,
        400: { description: 'Unknown role or sub-feature' },
        403: { description: notBelow },
      },
      handler: async ({ body }, req, res) => {
        const actor = await actorOf(req);
        const input = toPolicyInput(body);
        const existing = (await policies.list(input.roleId)).find(
          (policy) => policy.subFeatureId === input.subFeatureId,
        );
        const after = asAnswer(await policies.grant(actor, input));
        return recorded(res, existing ? asAnswer(existing) : null, after);
      },
    }),
  ];
}
