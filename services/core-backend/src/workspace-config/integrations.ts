/**
 * Workspace integrations: the messaging bridges (WhatsApp Business Cloud API) a workspace's
 * assistant is reachable on. The access token is sealed at rest and never returned; a check asks
 * the bridge about the phone number and records what it said.
 */
import { randomUUID } from 'node:crypto';
import { badRequest, errorMessage } from '@pelita/kit';
import type { Actor, MemberCheck } from '../workspaces/actor';
import type { SecretBox } from '../crypto/secret-box';
import { originOf, requireSecretsForNewDestination } from '../crypto/secret-destination';
import { changed } from '../db/row-writes';
import {
  INTEGRATION_COLUMNS,
  type Integration,
  type IntegrationRepository,
} from './integration-repository';
import { managedRows } from './managed-rows';
import type { MessagingBridge } from './messaging-bridge';

export type { Integration } from './integration-repository';

export interface IntegrationInput {
  type: 'whatsapp';
  name: string;
  base_url: string;
  phone_number_id: string;
  access_token: string;
  app_secret?: string | undefined;
  verify_token?: string | undefined;
  app_key_id?: string | undefined;
  enabled: boolean;
}

/** An integration Meta's webhook reaches, with what receiving and answering need (opened). */
export interface Receiver {
  id: string;
  workspaceId: string;
  baseUrl: string;
  phoneNumberId: string;
  accessToken: string;
  appSecret: string;
  verifyToken: string;
  appKeyId: string;
  /** The member who made the app key: the integration's answers use what they may use. */
  actingUserId: string;
}

export function createIntegrations(
  repository: IntegrationRepository,
  box: SecretBox,
  bridge: MessagingBridge,
  workspaces: MemberCheck,
) {
  // Every member-facing function takes workspace.manage.
  const rows = managedRows(workspaces, repository, 'integration');
  const { find, manager, notFound, taken } = rows;

  /** The key must be a live key of this workspace: never another workspace's. */
  async function requireOwnKey(workspaceId: string, appKeyId: string | undefined): Promise<void> {
    if (appKeyId !== undefined && !(await repository.liveKey(workspaceId, appKeyId))) {
      throw badRequest(`app_key_id ${appKeyId} is not an active app key of this workspace`);
    }
  }
  const sealed = (secret: string | undefined) => (secret ? box.seal(secret) : undefined);

  return {
    find: rows.show,
    list: rows.list,
    async create(actor: Actor, input: IntegrationInput) {
      const { workspaceId, userId } = await manager(actor);
      await requireOwnKey(workspaceId, input.app_key_id);
      const id = randomUUID();
      await repository
        .insert(id, workspaceId, userId, input.type, {
          name: input.name,
          base_url: input.base_url,
          phone_number_id: input.phone_number_id,
          access_token_sealed: box.seal(input.access_token),
          app_secret_sealed: sealed(input.app_secret) ?? null,
          verify_token_sealed: sealed(input.verify_token) ?? null,
          app_key_id: input.app_key_id ?? null,
          enabled: input.enabled,
        })
        .catch(taken);
      return find(workspaceId, id);
    },
    /** Changes what is given; a new bridge, number or token forgets the last check. */
    async update(actor: Actor, id: string, changes: Partial<IntegrationInput>) {
      const { workspaceId } = await manager(actor);
      const before = await find(workspaceId, id);
      await requireOwnKey(workspaceId, changes.app_key_id);
      requireSecretsForNewDestination(
        { base_url: originOf(before.base_url) },
        { base_url: originOf(changes.base_url ?? before.base_url) },
        [{ field: 'access_token', stored: true, given: changes.access_token !== undefined }],
      );
      const reconnects =
        changes.base_url !== undefined ||
        changes.phone_number_id !== undefined ||
        changes.access_token !== undefined;
      const { access_token: token, app_secret: secret, verify_token: verify, ...given } = changes;
      const columns = changed(INTEGRATION_COLUMNS, before, {
        ...given,
        access_token_sealed: sealed(token),
        app_secret_sealed: sealed(secret),
        verify_token_sealed: sealed(verify),
      });
      await repository.update(id, workspaceId, columns, reconnects).catch(taken);
      return find(workspaceId, id);
    },
    remove: rows.remove,
    /**
     * The integration a webhook names, if it receives (enabled, its app secret, verify token and
     * a live app key set); anything else is the same 404, so nobody learns which ids exist.
     */
    async receiver(id: string): Promise<Receiver> {
      const row = await repository.receiving(id);
      if (!row) throw notFound(id);
      return {
        id: row.id,
        workspaceId: row.workspace_id,
        baseUrl: row.base_url,
        phoneNumberId: row.phone_number_id,
        accessToken: box.open(row.access_token_sealed),
        appSecret: box.open(row.app_secret_sealed),
        verifyToken: box.open(row.verify_token_sealed),
        appKeyId: row.app_key_id,
        actingUserId: row.app_key_created_by,
      };
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
        await repository.recordCheck(id, { ok: true, ...phone });
        return find(workspaceId, id);
      } catch (err) {
        await repository.recordCheck(id, { ok: false, error: errorMessage(err).slice(0, 500) });
        throw err;
      }
    },
  };
}

export type Integrations = ReturnType<typeof createIntegrations>;
