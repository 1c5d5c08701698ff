/** GET /authz/explain: which grant allowed or denied a method and path for a user (OPA's reasons). */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import type { DecisionExplanations } from '../access/decision-explanation';
import { ExplainQuery, ExplanationResponse, toExplanationResponse } from '../schemas/authz';
import type { RouteContext } from './route-context';

export function authzRoutes(
  explanations: DecisionExplanations,
  { actorOf }: RouteContext,
): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/authz/explain',
      summary: 'Why OPA allows or denies a method and path for a user, and by which grant',
      description:
        'Asks OPA (`pelita.authz.explain`) with the input the guard sends for that user. Your own decisions, or those of a user below your level; by default only administrators hold this endpoint.',
      tags: ['authz'],
      request: { query: ExplainQuery },
      responses: {
        200: { description: 'The decision and its grants', schema: ExplanationResponse },
        403: { description: 'The user is not below your level' },
        404: { description: 'No such user' },
        503: { description: 'OPA did not answer, or does not explain (its API policy)' },
      },
      handler: async ({ query }, req) =>
        toExplanationResponse(
          await explanations.explain(await actorOf(req), query.user_id, query.method, query.path),
        ),
    }),
  ];
}
