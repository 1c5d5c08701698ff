/**
 * The policy data document and the two user-service answers it is built from (the contract in
 * the README): `user_roles` comes from `/open-api/role-users`, `role_grants` from the `policies`
 * of `/open-api/role-grants`.
 */
import { z } from 'zod';

/** A top-level key of the policy data document, each filled from one user-service endpoint. */
export type Source = 'user_roles' | 'role_grants';

export const ALL_SOURCES: readonly Source[] = ['user_roles', 'role_grants'];

/** Grant record: the policy reads `method`, `path` and `status`; the rest is kept as it came. */
const GrantRecord = z.looseObject({
  id: z.unknown(),
  name: z.unknown(),
  label: z.unknown(),
  method: z.string(),
  path: z.string(),
  status: z.boolean(),
});

const RoleUsersAnswer = z.object({
  user_roles: z.record(z.string(), z.array(z.string())),
});

const RoleGrantsAnswer = z.object({
  policies: z.record(z.string(), z.array(GrantRecord)),
});

export interface SourceSpec {
  /** Path on the user service. */
  path: string;
  /** Takes the document value out of a validated answer. */
  extract: (body: unknown) => Record<string, unknown[]>;
}

export const SOURCES: Record<Source, SourceSpec> = {
  user_roles: {
    path: '/open-api/role-users',
    extract: (body) => RoleUsersAnswer.parse(body).user_roles,
  },
  role_grants: {
    path: '/open-api/role-grants',
    // Parsed only to check the shape: the records go into the document exactly as they came.
    extract: (body) => {
      RoleGrantsAnswer.parse(body);
      return (body as { policies: Record<string, unknown[]> }).policies;
    },
  },
};

/** The document held in the shared file: the two mappings, plus any other top-level key found there. */
export type PolicyDocument = Record<string, unknown>;
