/**
 * Who may give whom which workspace role. `members.manage` lets a member add members and change
 * roles, but never beyond their own rights: otherwise a custom role holding `members.manage`
 * could make its holder owner.
 */
import { HttpError } from '@pelita/kit';
import type { Permission } from './permissions';

export interface RoleGrant {
  name: string;
  permissions: Permission[];
}

const refused = (message: string) => new HttpError(403, 'role_not_grantable', message);

/**
 * Throws 403 unless `granter` may give `wanted` to a member now holding `current` (none: a new
 * member): only an owner makes owners or changes an owner's role; anyone else gives only roles
 * whose every permission they hold, to members whose role they could have given.
 */
export function checkRoleGrant(granter: RoleGrant, wanted: RoleGrant, current?: RoleGrant): void {
  if (granter.name === 'owner') return;
  for (const role of [wanted, current]) {
    if (role?.name === 'owner') throw refused('Only an owner makes owners or changes their role');
  }
  const beyond = (role: RoleGrant) =>
    role.permissions.filter((permission) => !granter.permissions.includes(permission));
  const wantedBeyond = beyond(wanted);
  if (wantedBeyond.length > 0) {
    throw refused(
      `The role ${wanted.name} holds ${wantedBeyond.join(', ')}, which your role ${granter.name} does not`,
    );
  }
  if (current && beyond(current).length > 0) {
    throw refused(
      `The member's role ${current.name} holds ${beyond(current).join(', ')}, which your role ${granter.name} does not`,
    );
  }
}
