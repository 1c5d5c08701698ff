/** /api/workspaces/:id/topics: named groups of documents a chat can be pointed at. */
import { itemRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import type { CallerOf } from '../workspaces/caller';
import { workspaceResource } from '../workspaces/collection-routes';
import { Deleted, Paging } from '../http-schemas';
import {
  TopicBody,
  TopicDocumentList,
  TopicDocumentParams,
  TopicDocumentsBody,
  TopicList,
  TopicParams,
  TopicPatch,
  TopicResponse,
  toTopicResponse,
} from './schemas';
import type { Topics } from './topics';

export function topicRoutes(deps: { topics: Topics; callerOf: CallerOf }): RouteDefinition[] {
  const { topics } = deps;
  const one = { description: 'The topic', schema: TopicResponse };
  const taken = { 409: 'Name taken' };
  const resource = workspaceResource(deps.callerOf, {
    segment: 'topics',
    params: TopicParams,
    one: { ...one, from: toTopicResponse },
    missing: 'No such workspace or topic (or not shared with the caller)',
  });
  return [
    ...resourceRoutes(
      resource,
      {
        list: {
          summary: 'Topics the caller may use, by name',
          page: { description: 'A page of topics', schema: TopicList },
          query: Paging,
        },
        create: { summary: 'Create a topic', body: TopicBody, answers: taken },
        show: { summary: 'One topic' },
        change: { summary: 'Rename or describe a topic', body: TopicPatch, answers: taken },
        remove: { summary: 'Delete a topic (its documents stay)' },
      },
      topics,
    ),
    itemRoute(resource, {
      method: 'get',
      path: '/documents',
      summary: "The topic's documents the caller may use",
      query: Paging,
      answer: { description: 'A page of documents', schema: TopicDocumentList },
      run: async (caller, { topicId }, { query }) => {
        const { rows, total } = await topics.documents(caller, topicId, query);
        return {
          data: rows.map((row) => ({ ...row, added_at: row.added_at.toISOString() })),
          total,
          ...query,
        };
      },
    }),
    itemRoute(resource, {
      method: 'post',
      path: '/documents',
      summary: 'Add documents to a topic (documents the caller may use, of this workspace)',
      body: TopicDocumentsBody,
      answer: one,
      answers: { 400: 'A document the caller may not use' },
      run: async (caller, { topicId }, { body }) =>
        toTopicResponse(await topics.addDocuments(caller, topicId, body.document_ids)),
    }),
    itemRoute(resource, {
      method: 'delete',
      path: '/documents/:documentId',
      params: TopicDocumentParams,
      summary: 'Take a document out of a topic',
      answer: { description: 'Removed', schema: Deleted },
      run: async (caller, { topicId, documentId }) => {
        await topics.removeDocument(caller, topicId, documentId);
        return { deleted: true };
      },
    }),
  ];
}
