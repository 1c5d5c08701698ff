/** The dashboard of a workspace: its figures, for members with workspace.manage. */
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import type { DashboardData, DashboardRepository } from './dashboard-repository';

export function createDashboard(repository: DashboardRepository, workspaces: MemberCheck) {
  return {
    /** The workspace's dashboard over the last `days`; it takes workspace.manage. */
    async of(actor: Actor, days: number): Promise<DashboardData> {
      const { workspaceId } = await memberOf(workspaces, actor, 'workspace.manage');
      return repository.figures(workspaceId, days);
    },
  };
}

export type Dashboard = ReturnType<typeof createDashboard>;
