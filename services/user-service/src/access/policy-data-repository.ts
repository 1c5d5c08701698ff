/** SQL of the role data policy-sync pushes to OPA: who holds which role, which role is granted what. */
import type { Pool } from 'pg';

export interface RoleGrantRow {
  roleName: string;
  /** The sub-feature's fields; null for a role without any grant (outer join). */
  id: number | null;
  name: string;
  label: string;
  method: string;
  path: string;
  status: boolean;
}

export function createPolicyDataRepository(pool: Pool) {
  return {
    /** Active users (verified, when self-registered) and their role, by user name. */
    async activeUserRoles(): Promise<Array<{ username: string; role: string }>> {
      const { rows } = await pool.query<{ username: string; role: string }>(
        `select u.username, r.name as role from users u join roles r on r.id = u.role_id
         where u.is_active and u.email_verified order by u.username`,
      );
      return rows;
    },
    /** Every role with each sub-feature policy of it, one row per grant (or one empty row). */
    async roleGrantRows(): Promise<RoleGrantRow[]> {
      const { rows } = await pool.query<RoleGrantRow>(
        `select r.name as "roleName", s.id, s.name, s.label, s.method, s.path, p.status
         from roles r
         left join policies p on p.role_id = r.id
         left join sub_features s on s.id = p.sub_feature_id
         order by r.name, s.id`,
      );
      return rows;
    },
  };
}

export type PolicyDataRepository = ReturnType<typeof createPolicyDataRepository>;
