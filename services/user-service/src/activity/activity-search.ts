/** Reading the activity log (`GET /activity-logs`): newest first, within OpenSearch's paging window. */
import { HttpError, badRequest } from '@pelita/kit';
import type { ActivityEntry, ActivityQuery, ActivityRepository } from '@pelita/kit';

/** OpenSearch's default `index.max_result_window`: from + size beyond it is refused. */
const MAX_WINDOW = 10_000;

export function createActivitySearch(repository: ActivityRepository | undefined) {
  return {
    async search(query: ActivityQuery): Promise<{ entries: ActivityEntry[]; total: number }> {
      if (!repository) {
        throw new HttpError(503, 'activity_log_unavailable', 'The activity log is not configured');
      }
      if (query.page * query.limit > MAX_WINDOW) {
        throw badRequest(
          `Only the newest ${MAX_WINDOW} entries can be paged through; narrow the filters`,
        );
      }
      return repository.search(query);
    },
  };
}

export type ActivitySearch = ReturnType<typeof createActivitySearch>;
