/** The dashboard area: a workspace at a glance, for its managers. */
import type pg from 'pg';
import type { Area } from '../area';
import type { MemberCheck } from '../workspaces/actor';
import type { CallerOf } from '../workspaces/caller';
import { createDashboard } from './dashboard';
import { createDashboardRepository } from './dashboard-repository';
import { dashboardRoutes } from './routes';

export function dashboardArea(deps: {
  pool: pg.Pool;
  workspaces: MemberCheck;
  callerOf: CallerOf;
}): Area {
  const dashboard = createDashboard(createDashboardRepository(deps.pool), deps.workspaces);
  return { routes: dashboardRoutes({ dashboard, callerOf: deps.callerOf }) };
}
