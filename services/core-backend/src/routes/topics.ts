/** /api/workspaces/:id/topics: named groups of documents a chat can be pointed at. */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import { actorOf, type CallerOf } from '../caller';
import { Deleted, Paging, WorkspaceParams } from '../schemas/common';
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
} from '../schemas/documents';
import type { Topics } from '../topics/topics';

export function topicRoutes(deps: { topics: Topics; callerOf: CallerOf }): RouteDefinition[] {
  const { topics } = deps;
  const tags = ['topics'];
  const one = { description: 'The topic', schema: TopicResponse };
  const missing = { description: 'No such workspace or topic (or not shared with the caller)' };
  const actor = (req: Parameters<CallerOf>[0], workspaceId: string) =>
    actorOf(deps.callerOf, req, workspaceId);
  const path = '/api/workspaces/:workspaceId/topics';
  return [
    defineRoute({
      method: 'get',
      path,
      summary: 'Topics the caller may use, by name',
      tags,
      request: { params: WorkspaceParams, query: Paging },
      responses: { 200: { description: 'A page of topics', schema: TopicList }, 404: missing },
      handler: async ({ params, query }, req) => {
        const { rows, total } = await topics.list(await actor(req, params.workspaceId), query);
        return { data: rows.map(toTopicResponse), total, ...query };
      },
    }),
    defineRoute({
      method: 'post',
      path,
      summary: 'Create a topic',
      tags,
      successStatus: 201,
      request: { params: WorkspaceParams, body: TopicBody },
      responses: { 201: one, 404: missing, 409: { description: 'Name taken' } },
      handler: async ({ params, body }, req) =>
        toTopicResponse(await topics.create(await actor(req, params.workspaceId), body)),
    }),
    defineRoute({
      method: 'get',
      path: `${path}/:topicId`,
      summary: 'One topic',
      tags,
      request: { params: TopicParams },
      responses: { 200: one, 404: missing },
      handler: async ({ params }, req) =>
        toTopicResponse(await topics.find(await actor(req, params.workspaceId), params.topicId)),
    }),
    defineRoute({
      method: 'patch',
      path: `${path}/:topicId`,
      summary: 'Rename or describe a topic',
      tags,
      request: { params: TopicParams, body: TopicPatch },
      responses: { 200: one, 404: missing, 409: { description: 'Name taken' } },
      handler: async ({ params, body }, req) =>
        toTopicResponse(
          await topics.update(await actor(req, params.workspaceId), params.topicId, body),
        ),
    }),
    defineRoute({
      method: 'delete',
      path: `${path}/:topicId`,
      summary: 'Delete a topic (its documents stay)',
      tags,
      request: { params: TopicParams },
      responses: { 200: { description: 'Deleted', schema: Deleted }, 404: missing },
      handler: async ({ params }, req) => {
        await topics.remove(await actor(req, params.workspaceId), params.topicId);
        return { deleted: true };
      },
    }),
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
