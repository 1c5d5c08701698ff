/** /users: paged list, read, create, change, delete (users whose role is below the caller's level). */
import { Deleted, defineRoute, type RouteDefinition } from '@pelita/kit';
import { z } from 'zod';
import { Paging, Uuid } from '../schemas/common';
import {
  CreateUserBody,
  UpdateUserBody,
  UpdatedUserResponse,
  UserListResponse,
  UserResponse,
  toNewUser,
  toUpdatedUserResponse,
  toUserChanges,
  toUserResponse,
} from '../schemas/users';
import type { Users } from '../users/users';
import { recorded } from './recorded';
import { recordedResourceRoutes } from './recorded-resource';
import type { RouteContext } from './route-context';

const SessionList = z.object({
  data: z.array(z.object({ id: z.string(), created_at: z.string().nullable() })),
});

export function userRoutes(users: Users, { actorOf, time }: RouteContext): RouteDefinition[] {
  const tags = ['users'];
  const missing = { description: 'No such user' };
  const notBelow = { description: 'Not below your level' };
  const ended = { description: 'Ended', schema: Deleted };
  const asAnswer = (row: Parameters<typeof toUserResponse>[0]) => toUserResponse(row, time);
  return [
    ...recordedResourceRoutes(
      actorOf,
      {
        tags,
        path: '/users',
        item: '/:id',
        params: { item: Uuid },
        one: { description: 'The user', schema: UserResponse, from: asAnswer },
        missing: missing.description,
      },
      {
        list: {
          summary: 'Users, paged',
          page: { description: 'A page of users', schema: UserListResponse },
          query: Paging,
          run: (query) => users.list(query.page, query.limit),
        },
        show: { summary: 'One user', run: ({ id }) => users.get(id) },
        create: {
          summary: 'Create a user with a role below your level',
          body: CreateUserBody,
          answers: { 403: 'Role not below your level', 409: 'E-mail or username taken' },
          run: (actor, body) => users.create(actor, toNewUser(body)),
        },
        remove: {
          summary: 'Delete a user below your level (their sessions end)',
          answers: { 403: notBelow.description },
          run: (actor, { id }) => users.remove(actor, id),
        },
      },
    ),
    // A change answers the pending e-mail address too, which the resource's answer has not.
    defineRoute({
      method: 'patch',
      path: '/users/:id',
      summary: 'Change a user below your level (or your own name, e-mail and full name)',
      description:
        'Your own new e-mail address (with `current_password`) is mailed a confirmation link; the account takes it when the link is followed (`POST /auth/verify-email`) and answers it as `pending_email` until then.',
      tags,
      request: { params: Uuid, body: UpdateUserBody },
      responses: {
        200: { description: 'The user', schema: UpdatedUserResponse },
        403: { description: 'User or role not below your level' },
        404: missing,
        409: { description: 'E-mail or username taken' },
        429: { description: 'A confirmation link for your new address went out moments ago' },
        503: { description: 'No e-mail can be sent to confirm your new address' },
      },
      handler: async ({ params, body }, req, res) => {
        const actor = await actorOf(req);
        const before = asAnswer(await users.get(params.id));
        const changed = await users.update(
          actor,
          params.id,
          toUserChanges(body),
          body.current_password,
        );
        return recorded(res, before, toUpdatedUserResponse(changed, time));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/users/:id/sessions',
      summary: "A user's live sessions, newest first (yours, or a user below your level)",
      tags,
      request: { params: Uuid },
      responses: {
        200: { description: 'The sessions', schema: SessionList },
        403: notBelow,
        404: missing,
      },
      handler: async ({ params }, req) => ({
        data: (await users.sessions(await actorOf(req), params.id)).map((session) => ({
          id: session.id,
          created_at: session.createdAt ? time(session.createdAt) : null,
        })),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/users/:id/sessions',
      summary: 'End every session of a user (tokens stop working at once)',
      tags,
      request: { params: Uuid },
      responses: { 200: ended, 403: notBelow, 404: missing },
      handler: async ({ params }, req) => {
        await users.endSessions(await actorOf(req), params.id);
        return { deleted: true as const };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/users/:id/sessions/:sessionId',
      summary: 'End one session of a user',
      tags,
      request: { params: Uuid.extend({ sessionId: z.string().min(1).max(200) }) },
      responses: {
        200: ended,
        403: notBelow,
        404: { description: 'No such user or session' },
      },
      handler: async ({ params }, req) => {
        await users.endSessions(await actorOf(req), params.id, params.sessionId);
        return { deleted: true as const };
      },
    }),
  ];
}
