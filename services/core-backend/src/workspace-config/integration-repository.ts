/** The `workspace_integrations` table (messaging bridges, the access token sealed). */
import type pg from 'pg';
import { workspaceRows } from './workspace-rows-repository';

export interface Integration {
  id: string;
  workspace_id: string;
  type: 'whatsapp';
  name: string;
  base_url: string;
  phone_number_id: string;
  access_token_sealed: string;
  enabled: boolean;
  checked_at: Date | null;
  check_ok: boolean | null;
  check_error: string | null;
  display_phone_number: string | null;
  verified_name: string | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

/** What is stored of a connection. */
export type IntegrationColumns = Pick<
  Integration,
  'name' | 'base_url' | 'phone_number_id' | 'access_token_sealed' | 'enabled'
>;

const fields = (c: IntegrationColumns) => [
  c.name,
  c.base_url,
  c.phone_number_id,
  c.access_token_sealed,
  c.enabled,
];

export function createIntegrationRepository(pool: pg.Pool) {
  return {
    ...workspaceRows<Integration>(pool, { table: 'workspace_integrations', orderBy: 't.name' }),
    async insert(
      id: string,
      workspaceId: string,
      userId: string,
      type: Integration['type'],
      columns: IntegrationColumns,
    ) {
      await pool.query(
        `insert into workspace_integrations (id, workspace_id, created_by, type, name, base_url,
           phone_number_id, access_token_sealed, enabled)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [id, workspaceId, userId, type, ...fields(columns)],
      );
    },
    /** Writes the columns; `reconnects` also forgets the last check. */
    async update(
      id: string,
      workspaceId: string,
      columns: IntegrationColumns,
      reconnects: boolean,
    ) {
      await pool.query(
        `update workspace_integrations set name = $3, base_url = $4, phone_number_id = $5,
           access_token_sealed = $6, enabled = $7, updated_at = now()
           ${reconnects ? ', checked_at = null, check_ok = null, check_error = null, display_phone_number = null, verified_name = null' : ''}
         where id = $1 and workspace_id = $2`,
        [id, workspaceId, ...fields(columns)],
      );
    },
    /** Records what the bridge said: the number's details, or the failure. */
    async recordCheck(
      id: string,
      outcome:
        | { ok: true; display_phone_number: string | null; verified_name: string | null }
        | { ok: false; error: string },
    ) {
      if (outcome.ok) {
        await pool.query(
          `update workspace_integrations set checked_at = now(), check_ok = true, check_error = null,
             display_phone_number = $2, verified_name = $3
           where id = $1`,
          [id, outcome.display_phone_number, outcome.verified_name],
        );
      } else {
        await pool.query(
          `update workspace_integrations set checked_at = now(), check_ok = false, check_error = $2
           where id = $1`,
          [id, outcome.error],
        );
      }
    },
  };
}

export type IntegrationRepository = ReturnType<typeof createIntegrationRepository>;
