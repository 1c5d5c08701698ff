/**
 * /utils: called by other services, not users; guarded by the service token (SERVICE_TOKEN, the
 * user service's CORE_BACKEND_TOKEN) instead of a user's access token.
 */
import {
  defineRoute,
  HttpError,
  requireServiceToken,
  storedText,
  type RouteDefinition,
} from '@pelita/kit';
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { UserDirectory } from './user-directory';

const UserNameBody = z.object({
  username: storedText().trim().min(1).max(128),
  full_name: storedText().max(200).optional(),
});

export function utilRoutes(
  users: UserDirectory,
  serviceToken: string | undefined,
): RouteDefinition[] {
  const guard: RequestHandler = serviceToken
    ? requireServiceToken(serviceToken)
    : (_req, _res, next) =>
        next(new HttpError(503, 'not_configured', 'SERVICE_TOKEN is not set: /utils is closed'));
  return [
    defineRoute({
      method: 'put',
      path: '/utils/update-user-name/:id',
      summary: "Copy a user's name from the user service (creates the user here when new)",
      description:
        'Body `{ username, full_name? }`, as the user service sends after every user change. The name is shown wherever the core backend shows a user (members, owners of resources).',
      tags: ['utilities'],
      public: true,
      before: [guard],
      request: {
        params: z.object({ id: storedText().min(1).max(128) }),
        body: UserNameBody,
      },
      responses: {
        200: {
          description: 'Stored',
          schema: z.object({
            id: z.string(),
            username: z.string(),
            full_name: z.string().optional(),
          }),
        },
        401: { description: 'Missing or wrong service token' },
      },
      handler: async ({ params, body }) => {
        await users.rename(params.id, {
          username: body.username,
          ...(body.full_name !== undefined ? { fullName: body.full_name } : {}),
        });
        return { id: params.id, ...body };
      },
    }),
  ];
}
