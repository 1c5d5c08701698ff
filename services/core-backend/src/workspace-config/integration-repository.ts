/** The `workspace_integrations` table (messaging bridges, the access token and app secret sealed). */
import type pg from 'pg';
import { rowWrites } from '../db/row-writes';
import { isLiveAppKey, workspaceRows } from './workspace-rows-repository';

export interface Integration {
  id: string;
  workspace_id: string;
  type: 'whatsapp';
  name: string;
  base_url: string;
  phone_number_id: string;
  access_token_sealed: string;
  /** What Meta signs its webhooks with, and the verify token of its handshake (sealed). */
  app_secret_sealed: string | null;
  verify_token_sealed: string | null;
  /** The app key the integration answers as: its sources are the integration's. */
  app_key_id: string | null;
  enabled: boolean;
  /** Read, not stored: whether Meta's webhook is answered (`receiving` below). */
  receiving: boolean;
  checked_at: Date | null;
  check_ok: boolean | null;
  check_error: string | null;
  display_phone_number: string | null;
  verified_name: string | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

/** What is stored of a connection (its type is set once, when it is made). */
export const INTEGRATION_COLUMNS = [
  'name',
  'base_url',
  'phone_number_id',
  'access_token_sealed',
  'app_secret_sealed',
  'verify_token_sealed',
  'app_key_id',
  'enabled',
] as const;
export type IntegrationColumns = Pick<Integration, (typeof INTEGRATION_COLUMNS)[number]>;

/** What a new connection forgets: the last check through the bridge. */
const FORGET_CHECK = [
  'checked_at',
  'check_ok',
  'check_error',
  'display_phone_number',
  'verified_name',
].map((column) => `${column} = null`);

export function createIntegrationRepository(pool: pg.Pool) {
  const writes = rowWrites<IntegrationColumns & Pick<Integration, 'type'>>(
    'workspace_integrations',
    ['type', ...INTEGRATION_COLUMNS],
  );
  const updates = rowWrites<IntegrationColumns>('workspace_integrations', INTEGRATION_COLUMNS);
  return {
    ...workspaceRows<Integration>(pool, {
      table: 'workspace_integrations',
      columns: `t.*, (t.enabled and t.app_secret_sealed is not null
        and t.verify_token_sealed is not null and exists (
          select 1 from app_keys k where k.id = t.app_key_id and k.revoked_at is null)) as receiving`,
      orderBy: 't.name',
    }),
    insert: (
      id: string,
      workspaceId: string,
      userId: string,
      type: Integration['type'],
      columns: IntegrationColumns,
    ) => writes.insert(pool, id, { workspaceId, userId }, { type, ...columns }),
    /** Writes the columns; `reconnects` also forgets the last check. */
    update: (id: string, workspaceId: string, columns: IntegrationColumns, reconnects: boolean) =>
      updates.update(pool, id, workspaceId, columns, reconnects ? FORGET_CHECK : []),
    /** Whether the key is a live key of this workspace. */
    liveKey: (workspaceId: string, appKeyId: string) => isLiveAppKey(pool, workspaceId, appKeyId),
    /**
     * An enabled integration ready to receive — its app secret, verify token and a live app key
     * set — with the key's maker.
     */
    async receiving(id: string) {
      const { rows } = await pool.query<
        Integration & {
          app_secret_sealed: string;
          verify_token_sealed: string;
          app_key_id: string;
          app_key_created_by: string;
        }
      >(
        `select i.*, k.created_by as app_key_created_by
         from workspace_integrations i
         join app_keys k on k.id = i.app_key_id and k.revoked_at is null
         where i.id = $1 and i.enabled
           and i.app_secret_sealed is not null and i.verify_token_sealed is not null`,
        [id],
      );
      return rows[0];
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
