/** The user behind a guarded request, recorded in the user directory on the way. */
import { unauthorized } from '@pelita/kit';
import type { Request } from 'express';
import type { Actor } from './actor';
import type { UserDirectory } from '../users/user-directory';

export interface Caller {
  id: string;
  username: string;
}

export type CallerOf = (req: Request) => Promise<Caller>;

export function callerOf(users: UserDirectory): CallerOf {
  return async (req) => {
    if (!req.auth) throw unauthorized();
    await users.remember(req.auth.sub, req.auth.username);
    return { id: req.auth.sub, username: req.auth.username };
  };
}

/** The caller as the actor of a workspace request: domain functions decide what it may do. */
export async function actorOf(callerOf: CallerOf, req: Request, workspaceId: string) {
  return { userId: (await callerOf(req)).id, workspaceId } satisfies Actor;
}
