/** Reports of a room or a topic (the seed's `report` system prompt, `MAX_CHAR_GENERATE_REPORT`). */
import { clientGoneSignal, defineRoute, type RouteDefinition } from '@pelita/kit';
import { z } from 'zod';
import type { Actor } from '../workspaces/actor';
import { actorOf, type CallerOf } from '../workspaces/caller';
import type { Report, Reports } from './reports';
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
  const path = '/api/workspaces/:workspaceId';
  /** A report's route: the caller and the path's resource to one call of `reports`. */
  const reportRoute = <P extends typeof RoomParams | typeof TopicParams>(route: {
    path: string;
    summary: string;
    params: P;
    missing: string;
    write: (actor: Actor, params: z.output<P>, signal: AbortSignal) => Promise<Report>;
  }) =>
    defineRoute({
      method: 'post',
      path: route.path,
      summary: route.summary,
      tags: ['reports'],
      request: { params: route.params },
      responses: {
        200: { description: 'The report', schema: ReportResponse },
        404: { description: route.missing },
        502: { description: 'The model answered with an error' },
        503: { description: 'The model server is unreachable' },
        504: { description: 'The model did not answer in time' },
      },
      handler: async ({ params }, req, res) =>
        route.write(
          await actorOf(deps.callerOf, req, params.workspaceId),
          params as z.output<P>,
          clientGoneSignal(res),
        ),
    });
  return [
    reportRoute({
      path: `${path}/rooms/:roomId/report`,
      summary: "A report of the room's conversation",
      params: RoomParams,
      missing: 'No such room (or not yours)',
      write: (actor, { roomId }, signal) => deps.reports.ofRoom(actor, roomId, signal),
    }),
    reportRoute({
      path: `${path}/topics/:topicId/report`,
      summary: "A report of the topic's documents the caller may use",
      params: TopicParams,
      missing: 'No such topic (or not shared with the caller)',
      write: (actor, { topicId }, signal) => deps.reports.ofTopic(actor, topicId, signal),
    }),
  ];
}
