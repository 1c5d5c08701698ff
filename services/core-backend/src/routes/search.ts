/** POST /api/workspaces/:id/search: retrieval as chat uses it, over what the caller may use. */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import type { AccessLists } from '../access/access-lists';
import type { CallerOf } from '../caller';
import type { KnowledgeIndex } from '../retrieval/knowledge-index';
import { WorkspaceParams } from '../schemas/common';
import { SearchBody, SearchResponse, toPassageResponse } from '../schemas/documents';
import type { Topics } from '../topics/topics';
import type { Workspaces } from '../workspaces/workspaces';

export function searchRoutes(deps: {
  workspaces: Workspaces;
  access: AccessLists;
  knowledge: KnowledgeIndex;
  topics: Topics;
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
        const hits = await deps.knowledge.search({
          workspaceId: params.workspaceId,
          query: body.query,
          visible: {
            document: await deps.access.visible(member, 'document'),
            audio: await deps.access.visible(member, 'audio'),
          },
          ...(body.topic_ids
            ? { documents: await deps.topics.documentsOf(member, body.topic_ids) }
            : {}),
          k: body.k ?? settings.top_k,
          mode: settings.retrieval_mode,
        });
        return { hits: hits.map(toPassageResponse) };
      },
    }),
  ];
}
