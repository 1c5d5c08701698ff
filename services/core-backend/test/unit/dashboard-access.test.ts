/** The dashboard decides access itself: workspace.manage, refused before any query. */
import { createDashboard } from '../../src/dashboard/dashboard';
import { createDashboardRepository } from '../../src/dashboard/dashboard-repository';
import { fakeWorkspaces, outsider, refused, untouched, viewer } from './access-fakes';

describe('dashboard and access', () => {
  it('refuses a viewer 403 and an outsider 404 before any query', async () => {
    const workspaces = fakeWorkspaces();
    const { pool, uses } = untouched();
    const dashboard = createDashboard(createDashboardRepository(pool), workspaces);
    await expect(dashboard.of(viewer, 30)).rejects.toEqual(refused(403));
    await expect(dashboard.of(outsider, 30)).rejects.toEqual(refused(404));
    expect(workspaces.asked).toEqual(['workspace.manage', 'workspace.manage']);
    expect(uses).toEqual([]);
  });
});
