/**
 * GET /open-api/role-users and /open-api/role-grants, read by policy-sync. Not behind the user
 * guard (policy-sync has no user token); when `OPEN_API_TOKEN` is set they need that bearer token.
 */
import { bearerMatches, defineRoute, unauthorized, type RouteDefinition } from '@pelita/kit';
import type { Request } from 'express';
import type { z } from 'zod';
import type { PolicyData } from '../access/policy-data';
import { RoleGrantsResponse, RoleUsersResponse } from '../schemas/open-api';

export function openApiRoutes(
  policyData: PolicyData,
  token: string | undefined,
): RouteDefinition[] {
  // The kit's constant-time check: no early exit on length, so timing says nothing of the token.
  const presents = token ? bearerMatches(token) : undefined;
  function checkToken(req: Request): void {
    if (!presents) return;
    if (!presents(req.headers.authorization)) {
      throw unauthorized('This endpoint requires Authorization: Bearer <open-api token>');
    }
  }
  const refused = { description: 'OPEN_API_TOKEN is set and was not sent' };
  /** A GET of policy-sync's: the token checked, then `{ [field]: what load reads }`. */
  const readFor = (
    path: string,
    summary: string,
    field: string,
    schema: z.ZodType,
    load: () => Promise<unknown>,
  ) =>
    defineRoute({
      method: 'get',
      path,
      summary,
      tags: ['open-api'],
      public: true,
      responses: { 200: { description: field, schema }, 401: refused },
      handler: async (_input, req) => {
        checkToken(req);
        return { [field]: await load() };
      },
    });
  return [
    readFor(
      '/open-api/role-users',
      'User names to role names, for policy-sync',
      'user_roles',
      RoleUsersResponse,
      () => policyData.roleUsers(),
    ),
    readFor(
      '/open-api/role-grants',
      'Role names to grant records, for policy-sync',
      'policies',
      RoleGrantsResponse,
      () => policyData.roleGrants(),
    ),
  ];
}
