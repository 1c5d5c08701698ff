/** The level rule of role management, with a small fake of the role repository. */
import type { RoleInput, RoleRepository, Role } from '../../src/roles/role-repository';
import { createRoles } from '../../src/roles/roles';
import { fakeRoleData } from './role-data-fake';

function fakeRoles(initial: Role[]): RoleRepository {
  const rows = new Map(initial.map((row) => [row.id, row]));
  let next = 100;
  const make = (id: number, input: RoleInput): Role => ({
    id,
    ...input,
    createdAt: new Date(0),
    updatedAt: new Date(0),
  });
  return {
    list: () => Promise.resolve([...rows.values()]),
    find: (id) => Promise.resolve(rows.get(id)),
    findByName: (name) => Promise.resolve([...rows.values()].find((row) => row.name === name)),
    insert: (input) => {
      const row = make(next++, input);
      rows.set(row.id, row);
      return Promise.resolve(row);
    },
    update: (id, input) => {
      const row = make(id, input);
      rows.set(id, row);
      return Promise.resolve(row);
    },
    remove: (id) => Promise.resolve(rows.delete(id)),
    countUsers: (id) => Promise.resolve(id === 3 ? 1 : 0),
  };
}

const role = (id: number, level: number): Role => ({
  id,
  name: `r${id}`,
  description: '',
  level,
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

describe('roles and levels', () => {
  const roleData = fakeRoleData();
  const triggered = roleData.committed;
  const roles = createRoles(
    fakeRoles([role(1, 1), role(2, 10), role(3, 50), role(4, 60)]),
    roleData,
  );
  const manager = { id: 'm', username: 'm', roleId: 3, level: 10 };

  it('creates only below the actor level', async () => {
    await expect(
      roles.create(manager, { name: 'same', description: '', level: 10 }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      roles.create(manager, { name: 'above', description: '', level: 2 }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      roles.create(manager, { name: 'below', description: '', level: 11 }),
    ).resolves.toMatchObject({ level: 11 });
    expect(triggered).toContainEqual(['role-grants']);
  });

  it('neither changes a role at or above the actor nor lifts one up to it', async () => {
    await expect(
      roles.update(manager, 2, { name: 'r2', description: '', level: 20 }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      roles.update(manager, 4, { name: 'r4', description: '', level: 10 }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      roles.update(manager, 4, { name: 'r4b', description: '', level: 70 }),
    ).resolves.toMatchObject({ name: 'r4b' });
    expect(triggered).toContainEqual(['role-users', 'role-grants']);
  });

  it('refuses to delete a role users still hold, and unknown roles are 404', async () => {
    await expect(roles.remove(manager, 3)).rejects.toMatchObject({ status: 409 });
    await expect(roles.remove(manager, 999)).rejects.toMatchObject({ status: 404 });
  });
});
