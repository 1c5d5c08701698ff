/**
 * The OpenAI-compatible models a workspace may use (model management). Without any, the
 * workspace uses the install's model (`MODEL_LOCAL` on `BASE_URL_LOCAL`). Once it has models,
 * exactly one is the default: the first becomes it, deleting the default hands it to the oldest
 * left. A model's own server (`base_url`) is a workspace manager's URL the core backend will call:
 * it is reached only through the SSRF guard (public addresses, or ALLOWED_TARGETS). Its API key is
 * sealed at rest and never returned.
 */
import { randomUUID } from 'node:crypto';
import { conflict, HttpError, inTransaction } from '@pelita/kit';
import type pg from 'pg';
import type { ModelChoice } from '../chats/model-client';
import type { SecretBox } from '../crypto/secret-box';
import { originOf, requireSecretsForNewDestination } from '../crypto/secret-destination';
import { isUniqueViolation } from '../db/database';
import type { Paging } from '../paging';

export interface WorkspaceModel {
  id: string;
  workspace_id: string;
  name: string;
  model: string;
  base_url: string | null;
  api_key_sealed: string | null;
  context_window: number | null;
  is_default: boolean;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

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
const taken = (err: unknown) => {
  throw isUniqueViolation(err) ? conflict('The workspace has that model already') : err;
};

export function createWorkspaceModels(
  pool: pg.Pool,
  box: SecretBox,
  install: InstallModel | undefined,
) {
  async function find(workspaceId: string, id: string): Promise<WorkspaceModel> {
    const { rows } = await pool.query<WorkspaceModel>(
      'select * from workspace_models where id = $1 and workspace_id = $2',
      [id, workspaceId],
    );
    if (!rows[0]) throw notFound(id);
    return rows[0];
  }

  /** A change of the workspace's models, one at a time per workspace: the default stays single. */
  async function locked<T>(workspaceId: string, work: (client: pg.PoolClient) => Promise<T>) {
    return inTransaction(pool, async (client) => {
      await client.query('select 1 from workspaces where id = $1 for update', [workspaceId]);
      return work(client);
    });
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
    async list(workspaceId: string, paging: Paging) {
      const { rows: count } = await pool.query<{ n: number }>(
        'select count(*)::int as n from workspace_models where workspace_id = $1',
        [workspaceId],
      );
      const { rows } = await pool.query<WorkspaceModel>(
        `select * from workspace_models where workspace_id = $1 order by is_default desc, name
         limit $2 offset $3`,
        [workspaceId, paging.limit, (paging.page - 1) * paging.limit],
      );
      return { rows, total: count[0]?.n ?? 0 };
    },
    async create(workspaceId: string, userId: string, input: ModelInput) {
      const id = randomUUID();
      await locked(workspaceId, async (client) => {
        const { rows } = await client.query<{ n: number }>(
          'select count(*)::int as n from workspace_models where workspace_id = $1 and is_default',
          [workspaceId],
        );
        const makeDefault = input.is_default || (rows[0]?.n ?? 0) === 0;
        if (makeDefault) {
          await client.query(
            'update workspace_models set is_default = false where workspace_id = $1',
            [workspaceId],
          );
        }
        await client
          .query(
            `insert into workspace_models (id, workspace_id, name, model, base_url, api_key_sealed,
               context_window, is_default, created_by)
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
            [
              id,
              workspaceId,
              input.name,
              input.model,
              input.base_url,
              input.api_key ? box.seal(input.api_key) : null,
              input.context_window,
              makeDefault,
              userId,
            ],
          )
          .catch(taken);
      });
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
      await locked(workspaceId, async (client) => {
        if (changes.is_default === true) {
          await client.query(
            'update workspace_models set is_default = false where workspace_id = $1',
            [workspaceId],
          );
        }
        const key =
          changes.api_key === undefined
            ? before.api_key_sealed
            : changes.api_key === null
              ? null
              : box.seal(changes.api_key);
        await client
          .query(
            `update workspace_models set name = $3, model = $4, base_url = $5, api_key_sealed = $6,
               context_window = $7, is_default = $8, updated_at = now()
             where id = $1 and workspace_id = $2`,
            [
              id,
              workspaceId,
              changes.name ?? before.name,
              changes.model ?? before.model,
              baseUrl,
              key,
              changes.context_window === undefined ? before.context_window : changes.context_window,
              // The default moves by making another model the default, not by unsetting it.
              changes.is_default === true ? true : before.is_default,
            ],
          )
          .catch(taken);
      });
      return find(workspaceId, id);
    },
    async remove(workspaceId: string, id: string): Promise<void> {
      await locked(workspaceId, async (client) => {
        const { rows } = await client.query<{ is_default: boolean }>(
          'delete from workspace_models where id = $1 and workspace_id = $2 returning is_default',
          [id, workspaceId],
        );
        if (!rows[0]) throw notFound(id);
        if (rows[0].is_default) {
          await client.query(
            `update workspace_models set is_default = true where id = (
               select id from workspace_models where workspace_id = $1 order by created_at, id limit 1)`,
            [workspaceId],
          );
        }
      });
    },
    /** The choice of a room: its model id when the workspace has it, else the default, else the install's. */
    async resolve(workspaceId: string, model: string | null): Promise<ModelChoice> {
      const { rows } = await pool.query<WorkspaceModel>(
        `select * from workspace_models where workspace_id = $1 and (model = $2 or is_default)
         order by (model = $2) desc limit 1`,
        [workspaceId, model],
      );
      if (rows[0]) return choiceOf(rows[0]);
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
      const { rows } = await pool.query<{ model: string }>(
        'select model from workspace_models where workspace_id = $1 order by is_default desc, name',
        [workspaceId],
      );
      if (rows.length > 0) return rows.map((row) => row.model);
      return install ? [install.model] : [];
    },
    choiceOf,
  };
}

export type WorkspaceModels = ReturnType<typeof createWorkspaceModels>;
