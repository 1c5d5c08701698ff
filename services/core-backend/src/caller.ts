/** The user behind a guarded request, recorded in the user directory on the way. */
import { unauthorized } from '@pelita/kit';
import type { Request } from 'express';
import type { UserDirectory } from './users/user-directory';

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
