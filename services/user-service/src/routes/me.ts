/** /me: what every signed-in user does for themselves — read their account, change their password. */
import {
  defineRoute,
  HttpError,
  MASKED_VALUE,
  recordChanges,
  type RouteDefinition,
} from '@pelita/kit';
import { z } from 'zod';
import type { PasswordReset } from '../auth/password-reset';
import { Password } from '../schemas/common';
import { toUserResponse, UserResponse } from '../schemas/users';
import type { Users } from '../users/users';
import type { RouteContext } from './route-context';

const ChangePasswordBody = z.object({
  current_password: z.string().min(1).max(1024),
  new_password: Password,
});

export function meRoutes(
  users: Users,
  passwords: PasswordReset,
  { actorOf, time }: RouteContext,
): RouteDefinition[] {
  const tags = ['me'];
  return [
    defineRoute({
      method: 'get',
      path: '/me',
      summary: 'Your own account, with your role',
      tags,
      responses: { 200: { description: 'You', schema: UserResponse } },
      handler: async (_input, req) =>
        toUserResponse(await users.get((await actorOf(req)).id), time),
    }),
    defineRoute({
      method: 'put',
      path: '/me/password',
      summary: 'Change your password; your other sessions and reset links end',
      tags,
      request: { body: ChangePasswordBody },
      responses: {
        200: { description: 'Changed', schema: z.object({ changed: z.literal(true) }) },
        403: { description: 'The current password is not right' },
      },
      handler: async ({ body }, req, res) => {
        const actor = await actorOf(req);
        if (!req.auth) throw new HttpError(401, 'unauthorized', 'Sign in first');
        await passwords.changeOwn(actor.id, req.auth.jti, body.current_password, body.new_password);
        // That it changed, never what to.
        recordChanges(res, [{ field: 'password', before: MASKED_VALUE, after: MASKED_VALUE }]);
        return { changed: true as const };
      },
    }),
  ];
}
