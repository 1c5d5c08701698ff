/**
 * Who is acting, and the level rule: an actor manages only roles below their own level (a
 * larger number) and only users holding such roles. Below every domain folder: it reads the
 * user through the function it is given.
 */
import { forbidden, unauthorized } from '@pelita/kit';

export interface Actor {
  id: string;
  username: string;
  roleId: number;
  level: number;
}

/** The fields of a user an actor is made of. */
export interface ActingUser {
  id: string;
  username: string;
  isActive: boolean;
  roleId: number;
  roleLevel: number;
}

export type FindUser = (id: string) => Promise<ActingUser | undefined>;

export async function loadActor(findUser: FindUser, userId: string | undefined): Promise<Actor> {
  const user = userId ? await findUser(userId) : undefined;
  if (!user?.isActive) throw unauthorized('The account behind this token no longer exists');
  return { id: user.id, username: user.username, roleId: user.roleId, level: user.roleLevel };
}

export function assertBelow(actor: Actor, level: number, what: string): void {
  if (level <= actor.level) {
    throw forbidden(`Only ${what} below your own level (${actor.level}) can be managed`);
  }
}

/** The highest level there is (roles are 1 and up): the built-in administrators'. */
const TOP_LEVEL = 1;

/**
 * Users, and the roles one gives them, follow the level rule with one exception: at the top
 * level, administrators manage each other — a second administrator can be made, and one who
 * leaves can be replaced or switched off by another. Roles themselves (their grants, their
 * level) stay under the plain rule: nobody edits the top role.
 */
export function assertManagesUser(actor: Actor, level: number): void {
  if (actor.level === TOP_LEVEL && level === TOP_LEVEL) return;
  assertBelow(actor, level, 'users');
}
