/** Reports of a room or a topic (the seed's `report` system prompt, `MAX_CHAR_GENERATE_REPORT`). */
import { clientGoneSignal, defineRoute, type RouteDefinition } from '@pelita/kit';
import { z } from 'zod';
import { actorOf, type CallerOf } from '../workspaces/caller';
import type { Reports } from './reports';
import { RoomParams } from './schemas';
import { TopicParams } from '../topics/schemas';

const ReportResponse = z.object({
  report: z.string(),
  model: z.string(),
  /** Characters of material the model was given. */
  characters: z.number().int(),
  /** Whether material beyond MAX_CHAR_GENERATE_REPORT was left out. */
  truncated: z.boolean(),
});

export function reportRoutes(deps: { reports: Reports; callerOf: CallerOf }): RouteDefinition[] {
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
      handler: async ({ params }, req, res) =>
        deps.reports.ofRoom(
          await actorOf(deps.callerOf, req, params.workspaceId),
          params.roomId,
          clientGoneSignal(res),
        ),
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
      handler: async ({ params }, req, res) =>
        deps.reports.ofTopic(
          await actorOf(deps.callerOf, req, params.workspaceId),
          params.topicId,
          clientGoneSignal(res),
        ),
    }),
  ];
}
