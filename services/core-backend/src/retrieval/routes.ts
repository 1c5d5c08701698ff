/** POST /api/workspaces/:id/search: retrieval as chat uses it, over what the caller may use. */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import { actorOf, type CallerOf } from '../workspaces/caller';
import type { Search } from './search';
import { WorkspaceParams } from '../http-schemas';
import { SearchBody, SearchResponse, toPassageResponse } from './schemas';

export function searchRoutes(deps: { search: Search; callerOf: CallerOf }): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/workspaces/:workspaceId/search',
      summary:
        'The passages that best match a query (hybrid BM25 + vectors, or as the workspace says)',
      description:
        'Only passages of documents and audios the caller may use; with `topic_ids`, only documents of those topics. `k` defaults to the workspace setting `top_k`.',
      tags: ['retrieval'],
      request: { params: WorkspaceParams, body: SearchBody },
      responses: {
        200: { description: 'Hits, best first', schema: SearchResponse },
        404: { description: 'No such workspace (or not a member)' },
      },
      handler: async ({ params, body }, req) => {
        const hits = await deps.search(await actorOf(deps.callerOf, req, params.workspaceId), {
          query: body.query,
          ...(body.topic_ids ? { topicIds: body.topic_ids } : {}),
          ...(body.k ? { k: body.k } : {}),
        });
        return { hits: hits.map(toPassageResponse) };
      },
    }),
  ];
}
