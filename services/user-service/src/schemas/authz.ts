/** The decision explanation's query and answer. */
import { z } from 'zod';
import type { DecisionExplanation } from '../access/decision-explanation';
import { OpaGrant } from '../access/opa-explain-client';

export const ExplainQuery = z.object({
  user_id: z.uuid(),
  method: z
    .string()
    .regex(/^[A-Za-z]{1,16}$/, 'an HTTP method')
    .transform((method) => method.toUpperCase()),
  path: z.string().min(1).max(2000).regex(/^\//, 'a path starting with /'),
});

// The grants are answered as OPA holds them.
const Grant = OpaGrant.extend({ status: z.unknown().describe('only `true` counts') });

export const ExplanationResponse = z.object({
  user: z.object({ id: z.string(), username: z.string() }),
  method: z.string(),
  path: z.string(),
  allowed: z.boolean(),
  reason: z
    .enum(['granted', 'switched_off', 'no_grant', 'not_in_policy_data'])
    .describe(
      '`granted`: a matching grant is on; `switched_off`: grants match but all are off; `no_grant`: none of the roles has a grant for this method and path; `not_in_policy_data`: OPA does not know the user (deactivated, unverified, or not synced yet)',
    ),
  roles: z.array(z.string()).describe("The user's roles as OPA holds them"),
  grants: z
    .array(Grant)
    .describe('Every grant of those roles naming this method and matching this path, on or off'),
});

export const toExplanationResponse = (
  explanation: DecisionExplanation,
): z.infer<typeof ExplanationResponse> => ({
  user: { id: explanation.user.id, username: explanation.user.username },
  method: explanation.method,
  path: explanation.path,
  allowed: explanation.allowed,
  reason: explanation.reason,
  roles: explanation.roles,
  grants: explanation.grants,
});
