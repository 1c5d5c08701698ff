/** GET /activity-logs: the user activity log, newest first, paged and filtered. */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import type { ActivitySearch } from '../activity/activity-search';
import {
  ActivityListResponse,
  ActivityQuerySchema,
  toActivityQuery,
  toActivityResponse,
} from '../schemas/activity';
import type { RouteContext } from './route-context';

export function activityRoutes(
  activity: ActivitySearch,
  { time }: RouteContext,
): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/activity-logs',
      summary: 'The user activity log, newest first; filter by user, action and time range',
      tags: ['activity'],
      request: { query: ActivityQuerySchema },
      responses: {
        200: { description: 'A page of entries', schema: ActivityListResponse },
        400: { description: 'Invalid filters, or a page beyond the newest 10000 entries' },
        503: { description: 'The activity log is not configured (OPENSEARCH_URL)' },
      },
      handler: async ({ query }) => {
        const { entries, total } = await activity.search(toActivityQuery(query));
        return {
          data: entries.map((entry) => toActivityResponse(entry, time)),
          total,
          page: query.page,
          limit: query.limit,
        };
      },
    }),
  ];
}
