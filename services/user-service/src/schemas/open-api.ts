/** The two answers policy-sync reads (its contract, services/policy-sync/README.md). */
import { z } from 'zod';

export const RoleUsersResponse = z.object({
  user_roles: z.record(z.string(), z.array(z.string())),
});
const GrantRecord = z.object({
  id: z.number().int(),
  name: z.string(),
  label: z.string(),
  method: z.string(),
  path: z.string(),
  status: z.boolean(),
});
export const RoleGrantsResponse = z.object({
  policies: z.record(z.string(), z.array(GrantRecord)),
});
