/** The two documents policy-sync reads, built from rows of a fake repository. */
import { createPolicyData } from '../../src/access/policy-data';
import type { RoleGrantRow } from '../../src/access/policy-data-repository';

const grant = (role: string, id: number | null, status = true): RoleGrantRow => ({
  roleName: role,
  id,
  name: `sub-${id}`,
  label: `Sub ${id}`,
  method: 'GET',
  path: `/things/${id}`,
  status,
});

const policyData = createPolicyData({
  activeUserRoles: () =>
    Promise.resolve([
      { username: 'ada', role: 'admin' },
      { username: 'bob', role: 'user' },
      { username: 'ada', role: 'auditor' },
    ]),
  roleGrantRows: () =>
    Promise.resolve([grant('admin', 1), grant('admin', 2, false), grant('user', null)]),
});

describe('policy data', () => {
  it('maps each user name to all its roles', async () => {
    expect(await policyData.roleUsers()).toEqual({ ada: ['admin', 'auditor'], bob: ['user'] });
  });

  it('lists every role, one without grants as an empty list, switched-off grants with their status', async () => {
    expect(await policyData.roleGrants()).toEqual({
      admin: [
        { id: 1, name: 'sub-1', label: 'Sub 1', method: 'GET', path: '/things/1', status: true },
        { id: 2, name: 'sub-2', label: 'Sub 2', method: 'GET', path: '/things/2', status: false },
      ],
      user: [],
    });
  });
});
