/** /api/workspaces/:id/topics: named groups of documents a chat can be pointed at. */
import { defineRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import { actorOf, type CallerOf } from '../workspaces/caller';
import { Deleted, Paging, WorkspaceParams } from '../http-schemas';
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
  const tags = ['topics'];
  const one = { description: 'The topic', schema: TopicResponse };
  const missing = { description: 'No such workspace or topic (or not shared with the caller)' };
  const actor = (req: Parameters<CallerOf>[0], workspaceId: string) =>
    actorOf(deps.callerOf, req, workspaceId);
  const path = '/api/workspaces/:workspaceId/topics';
  return [
    ...resourceRoutes(
      {
        tags,
        path,
        item: '/:topicId',
        params: { collection: WorkspaceParams, item: TopicParams },
        caller: (req, params) => actor(req, params.workspaceId),
        one: { description: 'The topic', schema: TopicResponse, from: toTopicResponse },
        missing: missing.description,
      },
      {
        list: {
          summary: 'Topics the caller may use, by name',
          page: { description: 'A page of topics', schema: TopicList },
          query: Paging,
          run: (caller, query) => topics.list(caller, query),
        },
        create: {
          summary: 'Create a topic',
          body: TopicBody,
          run: (caller, body) => topics.create(caller, body),
          answers: { 409: 'Name taken' },
        },
        show: { summary: 'One topic', run: (caller, { topicId }) => topics.find(caller, topicId) },
        change: {
          summary: 'Rename or describe a topic',
          body: TopicPatch,
          run: (caller, { topicId }, body) => topics.update(caller, topicId, body),
          answers: { 409: 'Name taken' },
        },
        remove: {
          summary: 'Delete a topic (its documents stay)',
          run: (caller, { topicId }) => topics.remove(caller, topicId),
        },
      },
    ),
    defineRoute({
      method: 'get',
      path: `${path}/:topicId/documents`,
      summary: "The topic's documents the caller may use",
      tags,
      request: { params: TopicParams, query: Paging },
      responses: {
        200: { description: 'A page of documents', schema: TopicDocumentList },
        404: missing,
      },
      handler: async ({ params, query }, req) => {
        const { rows, total } = await topics.documents(
          await actor(req, params.workspaceId),
          params.topicId,
          query,
        );
        return {
          data: rows.map((row) => ({ ...row, added_at: row.added_at.toISOString() })),
          total,
          ...query,
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${path}/:topicId/documents`,
      summary: 'Add documents to a topic (documents the caller may use, of this workspace)',
      tags,
      request: { params: TopicParams, body: TopicDocumentsBody },
      responses: {
        200: one,
        400: { description: 'A document the caller may not use' },
        404: missing,
      },
      handler: async ({ params, body }, req) =>
        toTopicResponse(
          await topics.addDocuments(
            await actor(req, params.workspaceId),
            params.topicId,
            body.document_ids,
          ),
        ),
    }),
    defineRoute({
      method: 'delete',
      path: `${path}/:topicId/documents/:documentId`,
      summary: 'Take a document out of a topic',
      tags,
      request: { params: TopicDocumentParams },
      responses: { 200: { description: 'Removed', schema: Deleted }, 404: missing },
      handler: async ({ params }, req) => {
        await topics.removeDocument(
          await actor(req, params.workspaceId),
          params.topicId,
          params.documentId,
        );
        return { deleted: true };
      },
    }),
  ];
}
