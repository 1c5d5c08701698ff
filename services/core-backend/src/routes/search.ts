/** POST /api/workspaces/:id/search: retrieval as chat uses it, over what the caller may use. */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import type { CallerOf } from '../caller';
import type { Retrieve } from '../retrieval/retriever';
import { WorkspaceParams } from '../schemas/common';
import { SearchBody, SearchResponse, toPassageResponse } from '../schemas/documents';
import type { Workspaces } from '../workspaces/workspaces';

export function searchRoutes(deps: {
  workspaces: Workspaces;
  retrieve: Retrieve;
  callerOf: CallerOf;
}): RouteDefinition[] {
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
        const member = await deps.workspaces.access(
          params.workspaceId,
          (await deps.callerOf(req)).id,
          'knowledge.read',
        );
        const { settings } = await deps.workspaces.get(params.workspaceId);
        const hits = await deps.retrieve(member, {
          query: body.query,
          settings,
          ...(body.topic_ids ? { narrowTo: { documentIds: [], topicIds: body.topic_ids } } : {}),
          ...(body.k ? { k: body.k } : {}),
        });
        return { hits: hits.map(toPassageResponse) };
      },
    }),
  ];
}
