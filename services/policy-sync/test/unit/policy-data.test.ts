import { SOURCES } from '../../src/sync/policy-data';

describe('the user-service answers', () => {
  it('takes user_roles out of /open-api/role-users', () => {
    const body = { user_roles: { ann: ['a', 'b'], bob: [] } };
    expect(SOURCES.user_roles.extract(body)).toEqual(body.user_roles);
    expect(() => SOURCES.user_roles.extract({ user_roles: { ann: 'a' } })).toThrow();
    expect(() => SOURCES.user_roles.extract({ users: {} })).toThrow();
  });

  it('takes the policies of /open-api/role-grants, keeping the records as they came', () => {
    const record = { id: 1, name: 'n', label: 'l', method: 'GET', path: '/x/*', status: true };
    const withMore = { ...record, created_at: '2024-01-01', label: null };
    const policies = { admin: [record, withMore] };
    const extracted = SOURCES.role_grants.extract({ policies });
    expect(extracted).toEqual(policies);
    expect(extracted.admin?.[1]).toBe(withMore);
  });

  it('refuses grants without what the policy reads (method, path, boolean status)', () => {
    const bad = (grant: Record<string, unknown>) => () =>
      SOURCES.role_grants.extract({ policies: { admin: [grant] } });
    expect(bad({ id: 1, path: '/x', status: true })).toThrow();
    expect(bad({ id: 1, method: 'GET', status: true })).toThrow();
    expect(bad({ id: 1, method: 'GET', path: '/x', status: 'true' })).toThrow();
    expect(() => SOURCES.role_grants.extract({ policies: [] })).toThrow();
  });
});
