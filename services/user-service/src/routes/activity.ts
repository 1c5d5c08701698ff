/** GET /activity-logs: the user activity log, newest first, paged and filtered. */
import { badRequest, defineRoute, HttpError, type RouteDefinition } from '@pelita/kit';
import type { ActivityRepository } from '../activity/activity-repository';
import { ActivityListResponse, ActivityQuerySchema, toActivityResponse } from '../schemas/activity';
import type { FormatTimestamp } from '../timestamps';

/** OpenSearch's default `index.max_result_window`: from + size beyond it is refused. */
const MAX_WINDOW = 10_000;

export function activityRoutes(
  repository: ActivityRepository | undefined,
  time: FormatTimestamp,
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
        if (!repository) {
          throw new HttpError(
            503,
            'activity_log_unavailable',
            'The activity log is not configured',
          );
        }
        if (query.page * query.limit > MAX_WINDOW) {
          throw badRequest(
            `Only the newest ${MAX_WINDOW} entries can be paged through; narrow the filters`,
          );
        }
        const { entries, total } = await repository.search({
          ...query,
          from: query.from ? new Date(query.from) : undefined,
          to: query.to ? new Date(query.to) : undefined,
        });
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
