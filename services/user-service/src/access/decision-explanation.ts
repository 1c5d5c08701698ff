/**
 * Which grant allowed or denied a request of a user: OPA's explanation, with a reason an
 * administrator reads at a glance. Only for oneself or a user one manages (the level rule): an
 * explanation shows a user's roles and grants.
 */
import { notFound } from '@pelita/kit';
import { assertManagesUser, type Actor } from '../actor';
import type { ExplainDecision, OpaExplanation } from './opa-explain-client';

export type DecisionReason =
  /** At least one matching grant is switched on. */
  | 'granted'
  /** Grants match the request, but every one is switched off. */
  | 'switched_off'
  /** No grant of the user's roles names this method and matches this path. */
  | 'no_grant'
  /** OPA's data has no such user: deactivated, unverified, or not synced yet. */
  | 'not_in_policy_data';

/** The fields of a user an explanation needs (read through the function it is given). */
export interface ExplainedUser {
  id: string;
  username: string;
  roleLevel: number;
}

export interface DecisionExplanation {
  user: ExplainedUser;
  method: string;
  path: string;
  allowed: boolean;
  reason: DecisionReason;
  roles: string[];
  grants: OpaExplanation['matching_grants'];
}

export interface DecisionExplanationDeps {
  findUser: (id: string) => Promise<ExplainedUser | undefined>;
  explain: ExplainDecision;
}

function reasonOf(explanation: OpaExplanation): DecisionReason {
  if (explanation.allowed) return 'granted';
  if (!explanation.user_known) return 'not_in_policy_data';
  return explanation.matching_grants.length > 0 ? 'switched_off' : 'no_grant';
}

export function createDecisionExplanation(deps: DecisionExplanationDeps) {
  return {
    async explain(
      actor: Actor,
      userId: string,
      method: string,
      path: string,
    ): Promise<DecisionExplanation> {
      const user = await deps.findUser(userId);
      if (!user) throw notFound(`User ${userId} not found`);
      if (user.id !== actor.id) assertManagesUser(actor, user.roleLevel);
      const answer = await deps.explain({ user: user.username, method, path });
      return {
        user,
        method,
        path,
        allowed: answer.allowed,
        reason: reasonOf(answer),
        roles: answer.roles,
        grants: answer.matching_grants,
      };
    },
  };
}

export type DecisionExplanations = ReturnType<typeof createDecisionExplanation>;
