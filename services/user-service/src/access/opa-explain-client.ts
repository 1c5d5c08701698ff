/**
 * Asks OPA why it decides as it does: `POST {URL_OPA}/v1/data/pelita/authz/explain` (the rule of
 * `policies/explain.rego`) with the input the guard sends to `allow`, through the kit's OPA
 * transport. OPA's own answer, so an explanation shows what OPA holds — stale data included —
 * not what this service believes.
 */
import { HttpError, queryOpaRule, type AuthorizationInput } from '@pelita/kit';
import { z } from 'zod';

/** A grant record as OPA holds it, with the role it belongs to. */
export const OpaGrant = z.object({
  role: z.string(),
  id: z.unknown(),
  name: z.unknown(),
  label: z.unknown(),
  method: z.string(),
  path: z.string(),
  status: z.unknown(),
});
const OpaExplanation = z.object({
  allowed: z.boolean(),
  user_known: z.boolean(),
  roles: z.array(z.string()),
  matching_grants: z.array(OpaGrant),
});
export type OpaExplanation = z.infer<typeof OpaExplanation>;

export type ExplainDecision = (input: AuthorizationInput) => Promise<OpaExplanation>;

export function opaExplainClient(opaUrl: string, timeoutMs = 2000): ExplainDecision {
  const query = queryOpaRule({
    url: opaUrl,
    rule: 'pelita/authz/explain',
    timeoutMs,
    // OPA's own API policy (policies/system_authz.rego) lets services ask listed rules only.
    refused: () =>
      new HttpError(
        503,
        'explanation_unavailable',
        'The policy engine refuses to explain: `explain` is not among the decision rules its API policy (system.authz) opens',
      ),
  });
  return async function explainWithOpa(input) {
    const parsed = OpaExplanation.safeParse(await query(input));
    if (!parsed.success) {
      // No `explain` rule loaded (an older policies/), or one of another shape.
      throw new HttpError(
        503,
        'explanation_unavailable',
        'The policy engine has no `pelita.authz.explain` rule of the expected shape',
      );
    }
    return parsed.data;
  };
}
