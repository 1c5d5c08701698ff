/**
 * The two documents policy-sync reads (`/open-api/role-users`, `/open-api/role-grants`), in the
 * shape its contract fixes (services/policy-sync/README.md).
 */
import type { PolicyDataRepository } from './policy-data-repository';

export interface GrantRecord {
  id: number;
  name: string;
  label: string;
  method: string;
  path: string;
  status: boolean;
}

export function createPolicyData(repository: PolicyDataRepository) {
  return {
    /** `user_roles`: active users' names to their role names. */
    async roleUsers(): Promise<Record<string, string[]>> {
      const result: Record<string, string[]> = {};
      for (const { username, role } of await repository.activeUserRoles()) {
        (result[username] ??= []).push(role);
      }
      return result;
    },
    /** `policies`: every role (also those without grants: OPA must know them) to its grants. */
    async roleGrants(): Promise<Record<string, GrantRecord[]>> {
      const result: Record<string, GrantRecord[]> = {};
      for (const {
        roleName,
        id,
        name,
        label,
        method,
        path,
        status,
      } of await repository.roleGrantRows()) {
        const grants = (result[roleName] ??= []);
        if (id !== null) grants.push({ id, name, label, method, path, status });
      }
      return result;
    },
  };
}

export type PolicyData = ReturnType<typeof createPolicyData>;
