/**
 * Workspace integrations: the messaging bridges (WhatsApp Business Cloud API) a workspace's
 * assistant is reachable on. The access token is sealed at rest and never returned; a check asks
 * the bridge about the phone number and records what it said.
 */
import { randomUUID } from 'node:crypto';
import { errorMessage } from '@pelita/kit';
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
  enabled: boolean;
}

export function createIntegrations(
  repository: IntegrationRepository,
  box: SecretBox,
  bridge: MessagingBridge,
  workspaces: MemberCheck,
) {
  // Every member-facing function takes workspace.manage.
  const rows = managedRows(workspaces, repository, 'integration');
  const { find, manager, taken } = rows;

  return {
    find: rows.show,
    list: rows.list,
    async create(actor: Actor, input: IntegrationInput) {
      const { workspaceId, userId } = await manager(actor);
      const id = randomUUID();
      await repository
        .insert(id, workspaceId, userId, input.type, {
          name: input.name,
          base_url: input.base_url,
          phone_number_id: input.phone_number_id,
          access_token_sealed: box.seal(input.access_token),
          enabled: input.enabled,
        })
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
      const { access_token: token, ...given } = changes;
      const columns = changed(INTEGRATION_COLUMNS, before, {
        ...given,
        access_token_sealed: token ? box.seal(token) : undefined,
      });
      await repository.update(id, workspaceId, columns, reconnects).catch(taken);
      return find(workspaceId, id);
    },
    remove: rows.remove,
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
