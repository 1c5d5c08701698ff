import type { Permission } from '../../src/workspaces/permissions';
import { checkRoleGrant, type RoleGrant } from '../../src/workspaces/role-grants';

const ALL: Permission[] = [
  'workspace.manage',
  'members.manage',
  'knowledge.write',
  'knowledge.read',
  'knowledge.all',
  'chat',
];
const owner: RoleGrant = { name: 'owner', permissions: ALL };
const editor: RoleGrant = {
  name: 'editor',
  permissions: ['knowledge.write', 'knowledge.read', 'chat'],
};
const viewer: RoleGrant = { name: 'viewer', permissions: ['knowledge.read', 'chat'] };
const gatekeeper: RoleGrant = {
  name: 'gatekeeper',
  permissions: ['members.manage', 'knowledge.read', 'chat'],
};
const everything: RoleGrant = { name: 'everything', permissions: ALL };

const refusal = (granter: RoleGrant, wanted: RoleGrant, current?: RoleGrant) => {
  try {
    checkRoleGrant(granter, wanted, current);
    return undefined;
  } catch (err) {
    return err as { status: number; code: string; message: string };
  }
};

describe('who may give which workspace role', () => {
  it('lets an owner give any role, owner included, and change an owner', () => {
    for (const wanted of [owner, editor, viewer, gatekeeper, everything]) {
      expect(refusal(owner, wanted)).toBeUndefined();
      expect(refusal(owner, wanted, owner)).toBeUndefined();
    }
  });

  it('never lets anyone else make an owner, even with every permission', () => {
    expect(refusal(gatekeeper, owner)).toMatchObject({ status: 403, code: 'role_not_grantable' });
    expect(refusal(everything, owner)).toMatchObject({ status: 403 });
  });

  it("never lets anyone else change an owner's role", () => {
    expect(refusal(everything, viewer, owner)).toMatchObject({ status: 403 });
  });

  it('refuses a role holding a permission the granter lacks, naming it', () => {
    const refused = refusal(gatekeeper, editor);
    expect(refused).toMatchObject({ status: 403 });
    expect(refused?.message).toContain('knowledge.write');
    expect(refusal(gatekeeper, everything)).toMatchObject({ status: 403 });
  });

  it('refuses changing a member whose role holds more than the granter', () => {
    expect(refusal(gatekeeper, viewer, editor)).toMatchObject({ status: 403 });
  });

  it('gives roles within the granter’s own permissions, its own role included', () => {
    expect(refusal(gatekeeper, viewer)).toBeUndefined();
    expect(refusal(gatekeeper, gatekeeper, viewer)).toBeUndefined();
    expect(refusal(everything, editor, viewer)).toBeUndefined();
  });
});
