/** GET /api/workspaces/:id/dashboard: the workspace at a glance (workspace.manage). */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import { z } from 'zod';
import { actorOf, type CallerOf } from '../workspaces/caller';
import type { Dashboard } from './dashboard';
import { WorkspaceParams } from '../http-schemas';

const DashboardResponse = z.object({
  documents: z.object({
    queued: z.number().int(),
    processing: z.number().int(),
    done: z.number().int(),
    failed: z.number().int(),
    total: z.number().int(),
  }),
  messages_per_day: z.array(z.object({ day: z.string(), messages: z.number().int() })),
  reactions: z.object({ likes: z.number().int(), dislikes: z.number().int() }),
  top_sources: z.array(
    z.object({
      type: z.string(),
      id: z.string(),
      name: z.string().nullable(),
      uses: z.number().int(),
    }),
  ),
  counts: z.record(z.string(), z.number().int()),
});

export function dashboardRoutes(deps: {
  dashboard: Dashboard;
  callerOf: CallerOf;
}): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/workspaces/:workspaceId/dashboard',
      summary:
        'Documents by state, messages per day (UTC), likes vs dislikes, most used sources, counts',
      tags: ['dashboard'],
      request: {
        params: WorkspaceParams,
        query: z.object({ days: z.coerce.number().int().min(1).max(365).default(30) }),
      },
      responses: {
        200: { description: 'Dashboard data', schema: DashboardResponse },
        403: { description: 'Needs workspace.manage' },
        404: { description: 'No such workspace (or not a member)' },
      },
      handler: async ({ params, query }, req) => {
        return deps.dashboard.of(await actorOf(deps.callerOf, req, params.workspaceId), query.days);
      },
    }),
  ];
}
