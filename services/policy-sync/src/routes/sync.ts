/** `GET /role-users` and `GET /role-grants`: pull one mapping from the user service and push it to OPA. */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import { z } from 'zod';
import type { Source } from '../sync/policy-data';
import type { SyncOnRequest } from '../sync/sync-on-request';
import { InfoBody } from './info-body';

const SyncAnswer = z.object({
  info: z.string().describe('What was synced, e.g. `user_roles synced`'),
  revision: z.string().describe('Content hash of the policy data document OPA now holds'),
  count: z.number().int().describe('Users (`user_roles`) or roles (`role_grants`) received'),
  replicas: z
    .object({
      expected: z.number().int().describe('Replicas listening for triggers, this one included'),
      confirmed: z
        .number()
        .int()
        .describe('Replicas whose OPA holds the new data: this one and the peers that said so'),
    })
    .describe(
      'Whether every OPA holds the change: `confirmed < expected` when a peer did not confirm within PEER_CONFIRM_TIMEOUT_MS (or Redis is away); callers that need every OPA call again',
    ),
});

const ENDPOINTS: Array<{ path: string; source: Source; what: string }> = [
  { path: '/role-users', source: 'user_roles', what: 'the user-to-role mapping' },
  { path: '/role-grants', source: 'role_grants', what: 'the role-to-grant mapping' },
];

export function syncRoutes(deps: { syncOnRequest: SyncOnRequest }): RouteDefinition[] {
  return ENDPOINTS.map(({ path, source, what }) =>
    defineRoute({
      method: 'get',
      path,
      summary: `Pull ${what} from the user service and push the policy data to OPA`,
      description:
        `Fetches \`{URL_USER}/open-api${path}\`, replaces \`${source}\` in the shared policy data ` +
        'file, and sends the whole file to OPA. Every other replica is triggered to do the same.',
      tags: ['sync'],
      responses: {
        200: { description: 'Synced: the file and OPA hold the new data', schema: SyncAnswer },
        401: { description: 'SYNC_SERVICE_TOKEN is set and was not sent', schema: InfoBody },
        403: {
          description: 'The user service answered with another status than 200 (named in `info`)',
          schema: InfoBody,
        },
        500: {
          description: 'The user service or OPA is unreachable, or the file cannot be written',
          schema: InfoBody,
        },
      },
      handler: async (_input, req) => {
        const result = await deps.syncOnRequest(source, req.log);
        return {
          info: `${source} synced`,
          revision: result.revision,
          count: result.counts[source] ?? 0,
          replicas: result.replicas,
        };
      },
    }),
  );
}
