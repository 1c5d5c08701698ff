/**
 * GET /open-api/role-users and /open-api/role-grants, read by policy-sync. Not behind the user
 * guard (policy-sync has no user token); when `OPEN_API_TOKEN` is set they need that bearer token.
 */
import { bearerMatches, defineRoute, unauthorized, type RouteDefinition } from '@pelita/kit';
import type { Request } from 'express';
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
  const tags = ['open-api'];
  const refused = { description: 'OPEN_API_TOKEN is set and was not sent' };
  return [
    defineRoute({
      method: 'get',
      path: '/open-api/role-users',
      summary: 'User names to role names, for policy-sync',
      tags,
      public: true,
      responses: { 200: { description: 'user_roles', schema: RoleUsersResponse }, 401: refused },
      handler: async (_input, req) => {
        checkToken(req);
        return { user_roles: await policyData.roleUsers() };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/open-api/role-grants',
      summary: 'Role names to grant records, for policy-sync',
      tags,
      public: true,
      responses: { 200: { description: 'policies', schema: RoleGrantsResponse }, 401: refused },
      handler: async (_input, req) => {
        checkToken(req);
        return { policies: await policyData.roleGrants() };
      },
    }),
  ];
}
