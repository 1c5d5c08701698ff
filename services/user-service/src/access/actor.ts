/**
 * Who is acting, and the level rule: an actor manages only roles below their own level (a
 * larger number) and only users holding such roles.
 */
import { forbidden, unauthorized } from '@pelita/kit';
import type { UserRepository } from '../users/user-repository';

export interface Actor {
  id: string;
  username: string;
  level: number;
}

export async function loadActor(users: UserRepository, userId: string | undefined): Promise<Actor> {
  const user = userId ? await users.find(userId) : undefined;
  if (!user?.is_active) throw unauthorized('The account behind this token no longer exists');
  return { id: user.id, username: user.username, level: user.role_level };
}

export function assertBelow(actor: Actor, level: number, what: string): void {
  if (level <= actor.level) {
    throw forbidden(`Only ${what} below your own level (${actor.level}) can be managed`);
  }
}
