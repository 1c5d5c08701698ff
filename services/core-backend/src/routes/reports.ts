/** Reports of a room or a topic (the seed's `report` system prompt, `MAX_CHAR_GENERATE_REPORT`). */
import { clientGoneSignal, defineRoute, type RouteDefinition } from '@pelita/kit';
import { z } from 'zod';
import type { CallerOf } from '../caller';
import type { ChatStore } from '../chats/chat-store';
import type { Reports } from '../chats/reports';
import { RoomParams } from '../schemas/chats';
import { TopicParams } from '../schemas/documents';
import type { Topics } from '../topics/topics';
import type { Workspaces } from '../workspaces/workspaces';

const ReportResponse = z.object({
  report: z.string(),
  model: z.string(),
  /** Characters of material the model was given. */
  characters: z.number().int(),
  /** Whether material beyond MAX_CHAR_GENERATE_REPORT was left out. */
  truncated: z.boolean(),
});

export function reportRoutes(deps: {
  workspaces: Workspaces;
  chats: ChatStore;
  topics: Topics;
  reports: Reports;
  callerOf: CallerOf;
}): RouteDefinition[] {
  const tags = ['reports'];
  const upstream = {
    502: { description: 'The model answered with an error' },
    503: { description: 'The model server is unreachable' },
    504: { description: 'The model did not answer in time' },
  };
  return [
    defineRoute({
      method: 'post',
      path: '/api/workspaces/:workspaceId/rooms/:roomId/report',
      summary: "A report of the room's conversation",
      tags,
      request: { params: RoomParams },
      responses: {
        200: { description: 'The report', schema: ReportResponse },
        404: { description: 'No such room (or not yours)' },
        ...upstream,
      },
      handler: async ({ params }, req, res) => {
        const member = await deps.workspaces.access(
          params.workspaceId,
          (await deps.callerOf(req)).id,
          'chat',
        );
        const room = await deps.chats.room(params.workspaceId, member.userId, params.roomId);
        return deps.reports.ofRoom(room, clientGoneSignal(res));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/workspaces/:workspaceId/topics/:topicId/report',
      summary: "A report of the topic's documents the caller may use",
      tags,
      request: { params: TopicParams },
      responses: {
        200: { description: 'The report', schema: ReportResponse },
        404: { description: 'No such topic (or not shared with the caller)' },
        ...upstream,
      },
      handler: async ({ params }, req, res) => {
        const member = await deps.workspaces.access(
          params.workspaceId,
          (await deps.callerOf(req)).id,
          'knowledge.read',
        );
        const { rows } = await deps.topics.documents(
          { userId: member.userId, workspaceId: member.workspaceId },
          params.topicId,
          {
            page: 1,
            limit: 200,
          },
        );
        return deps.reports.ofDocuments(member, rows, clientGoneSignal(res));
      },
    }),
  ];
}
