/**
 * Workspace integrations: the messaging bridges (WhatsApp Business Cloud API) a workspace's
 * assistant is reachable on. The access token is sealed at rest and never returned; a check asks
 * the bridge about the phone number and records what it said.
 */
import { randomUUID } from 'node:crypto';
import { conflict, errorMessage, HttpError } from '@pelita/kit';
import type pg from 'pg';
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import type { SecretBox } from '../crypto/secret-box';
import { originOf, requireSecretsForNewDestination } from '../crypto/secret-destination';
import { isUniqueViolation } from '../db/database';
import type { Paging } from '../paging';
import type { MessagingBridge } from './messaging-bridge';

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

export interface IntegrationInput {
  type: 'whatsapp';
  name: string;
  base_url: string;
  phone_number_id: string;
  access_token: string;
  enabled: boolean;
}

const notFound = (id: string) =>
  new HttpError(404, 'integration_not_found', `The integration ${id} does not exist`);
const taken = (err: unknown) => {
  throw isUniqueViolation(err) ? conflict('The workspace has an integration of that name') : err;
};

export function createIntegrations(
  pool: pg.Pool,
  box: SecretBox,
  bridge: MessagingBridge,
  workspaces: MemberCheck,
) {
  async function find(workspaceId: string, id: string): Promise<Integration> {
    const { rows } = await pool.query<Integration>(
      'select * from workspace_integrations where id = $1 and workspace_id = $2',
      [id, workspaceId],
    );
    if (!rows[0]) throw notFound(id);
    return rows[0];
  }

  // Every member-facing function takes workspace.manage.
  const manager = (actor: Actor) => memberOf(workspaces, actor, 'workspace.manage');

  return {
    find: async (actor: Actor, id: string) => find((await manager(actor)).workspaceId, id),
    async list(actor: Actor, paging: Paging) {
      const { workspaceId } = await manager(actor);
      const { rows: count } = await pool.query<{ n: number }>(
        'select count(*)::int as n from workspace_integrations where workspace_id = $1',
        [workspaceId],
      );
      const { rows } = await pool.query<Integration>(
        `select * from workspace_integrations where workspace_id = $1 order by name
         limit $2 offset $3`,
        [workspaceId, paging.limit, (paging.page - 1) * paging.limit],
      );
      return { rows, total: count[0]?.n ?? 0 };
    },
    async create(actor: Actor, input: IntegrationInput) {
      const { workspaceId, userId } = await manager(actor);
      const id = randomUUID();
      await pool
        .query(
          `insert into workspace_integrations (id, workspace_id, type, name, base_url,
             phone_number_id, access_token_sealed, enabled, created_by)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [
            id,
            workspaceId,
            input.type,
            input.name,
            input.base_url,
            input.phone_number_id,
            box.seal(input.access_token),
            input.enabled,
            userId,
          ],
        )
        .catch(taken);
      return find(workspaceId, id);
    },
    /** Changes what is given; a new bridge, number or token forgets the last check. */
    async update(actor: Actor, id: string, changes: Partial<IntegrationInput>) {
      const { workspaceId } = await manager(actor);
      const before = await find(workspaceId, id);
      requireSecretsForNewDestination(
        { base_url: originOf(before.base_url) },
        { base_url: originOf(changes.base_url ?? before.base_url) },
        [{ field: 'access_token', stored: true, given: changes.access_token !== undefined }],
      );
      const reconnects =
        changes.base_url !== undefined ||
        changes.phone_number_id !== undefined ||
        changes.access_token !== undefined;
      await pool
        .query(
          `update workspace_integrations set name = $3, base_url = $4, phone_number_id = $5,
             access_token_sealed = $6, enabled = $7, updated_at = now()
             ${reconnects ? ', checked_at = null, check_ok = null, check_error = null, display_phone_number = null, verified_name = null' : ''}
           where id = $1 and workspace_id = $2`,
          [
            id,
            workspaceId,
            changes.name ?? before.name,
            changes.base_url ?? before.base_url,
            changes.phone_number_id ?? before.phone_number_id,
            changes.access_token ? box.seal(changes.access_token) : before.access_token_sealed,
            changes.enabled ?? before.enabled,
          ],
        )
        .catch(taken);
      return find(workspaceId, id);
    },
    async remove(actor: Actor, id: string): Promise<void> {
      const { workspaceId } = await manager(actor);
      const { rowCount } = await pool.query(
        'delete from workspace_integrations where id = $1 and workspace_id = $2',
        [id, workspaceId],
      );
      if (!rowCount) throw notFound(id);
    },
    /**
     * Asks the bridge about the number; the outcome is recorded either way. A failure is thrown
     * (502/503/504, 403 for a forbidden address) after it is recorded.
     */
    async check(actor: Actor, id: string): Promise<Integration> {
      const { workspaceId } = await manager(actor);
      const integration = await find(workspaceId, id);
      try {
        const phone = await bridge.phoneNumber(
          integration.base_url,
          integration.phone_number_id,
          box.open(integration.access_token_sealed),
        );
        await pool.query(
          `update workspace_integrations set checked_at = now(), check_ok = true, check_error = null,
             display_phone_number = $2, verified_name = $3
           where id = $1`,
          [id, phone.display_phone_number, phone.verified_name],
        );
        return find(workspaceId, id);
      } catch (err) {
        await pool.query(
          `update workspace_integrations set checked_at = now(), check_ok = false, check_error = $2
           where id = $1`,
          [id, errorMessage(err).slice(0, 500)],
        );
        throw err;
      }
    },
  };
}

export type Integrations = ReturnType<typeof createIntegrations>;
