/**
 * The OpenAI-compatible models a workspace may use (model management). Without any, the
 * workspace uses the install's model (`MODEL_LOCAL` on `BASE_URL_LOCAL`). Once it has models,
 * exactly one is the default: the first becomes it, deleting the default hands it to the oldest
 * left. A model's own server (`base_url`) is a workspace manager's URL the core backend will call:
 * it is reached only through the SSRF guard (public addresses, or ALLOWED_TARGETS). Its API key is
 * sealed at rest and never returned.
 */
import { randomUUID } from 'node:crypto';
import { HttpError } from '@pelita/kit';
import type { ModelChoice } from '../chats/model-client';
import type { SecretBox } from '../crypto/secret-box';
import { originOf, requireSecretsForNewDestination } from '../crypto/secret-destination';
import { conflictOnUnique } from '../db/database';
import { changed } from '../db/row-writes';
import type { Paging } from '../paging';
import {
  MODEL_COLUMNS,
  type WorkspaceModel,
  type WorkspaceModelRepository,
} from './workspace-model-repository';

export type { WorkspaceModel } from './workspace-model-repository';

export interface ModelInput {
  name: string;
  model: string;
  base_url: string | null;
  /** A string sets the key, null removes it, undefined keeps it. */
  api_key?: string | null;
  context_window: number | null;
  is_default: boolean;
}

export interface InstallModel {
  baseUrl: string;
  model: string;
  apiKey: string | undefined;
}

const notFound = (id: string) =>
  new HttpError(404, 'model_not_found', `The model ${id} does not exist`);
const taken = conflictOnUnique('The workspace has that model already');

export function createWorkspaceModels(
  repository: WorkspaceModelRepository,
  box: SecretBox,
  install: InstallModel | undefined,
) {
  async function find(workspaceId: string, id: string): Promise<WorkspaceModel> {
    const row = await repository.row(workspaceId, id);
    if (!row) throw notFound(id);
    return row;
  }

  const choiceOf = (row: WorkspaceModel): ModelChoice => ({
    model: row.model,
    baseUrl: row.base_url ?? install?.baseUrl ?? '',
    apiKey: row.api_key_sealed
      ? box.open(row.api_key_sealed)
      : row.base_url
        ? undefined
        : install?.apiKey,
    ...(row.base_url ? { guarded: true } : {}),
  });

  return {
    find,
    list: (workspaceId: string, paging: Paging) => repository.page(workspaceId, paging),
    async create(workspaceId: string, userId: string, input: ModelInput) {
      const id = randomUUID();
      await repository
        .insert(
          id,
          workspaceId,
          userId,
          {
            name: input.name,
            model: input.model,
            base_url: input.base_url,
            api_key_sealed: input.api_key ? box.seal(input.api_key) : null,
            context_window: input.context_window,
          },
          input.is_default,
        )
        .catch(taken);
      return find(workspaceId, id);
    },
    async update(workspaceId: string, id: string, changes: Partial<ModelInput>) {
      const before = await find(workspaceId, id);
      const baseUrl = changes.base_url === undefined ? before.base_url : changes.base_url;
      // The key goes to the model's server (the install's when base_url is null).
      requireSecretsForNewDestination(
        { base_url: originOf(before.base_url) },
        { base_url: originOf(baseUrl) },
        [
          {
            field: 'api_key',
            stored: before.api_key_sealed !== null,
            given: changes.api_key !== undefined,
          },
        ],
      );
      const { api_key: key, is_default: makeDefault, ...given } = changes;
      const columns = changed(MODEL_COLUMNS, before, {
        ...given,
        api_key_sealed: key === undefined || key === null ? key : box.seal(key),
      });
      // The default moves by making another model the default, not by unsetting it.
      const isDefault = makeDefault === true || before.is_default;
      await repository.update(id, workspaceId, columns, isDefault).catch(taken);
      return find(workspaceId, id);
    },
    async remove(workspaceId: string, id: string): Promise<void> {
      if (!(await repository.delete(workspaceId, id))) throw notFound(id);
    },
    /** The choice of a room: its model id when the workspace has it, else the default, else the install's. */
    async resolve(workspaceId: string, model: string | null): Promise<ModelChoice> {
      const row = await repository.chosen(workspaceId, model);
      if (row) return choiceOf(row);
      if (!install) {
        throw new HttpError(
          503,
          'model_not_configured',
          'The workspace has no model and the install none either (BASE_URL_LOCAL, MODEL_LOCAL)',
        );
      }
      if (model && model !== install.model) {
        throw new HttpError(
          404,
          'model_not_found',
          `The model \`${model}\` does not exist in this workspace`,
        );
      }
      return install;
    },
    /** The model ids the workspace offers (the open API's /models). */
    async ids(workspaceId: string): Promise<string[]> {
      const ids = await repository.ids(workspaceId);
      if (ids.length > 0) return ids;
      return install ? [install.model] : [];
    },
    choiceOf,
  };
}

export type WorkspaceModels = ReturnType<typeof createWorkspaceModels>;
