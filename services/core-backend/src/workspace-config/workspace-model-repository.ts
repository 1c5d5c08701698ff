/**
 * The `workspace_models` table. A workspace with models has exactly one default: every change
 * of its models runs under a lock of the workspace's row, one at a time.
 */
import { inTransaction } from '@pelita/kit';
import type pg from 'pg';
import { rowWrites } from '../db/row-writes';
import { workspaceRows } from './workspace-rows-repository';

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

/** What is stored of a model, but whether it is the default. */
export const MODEL_COLUMNS = [
  'name',
  'model',
  'base_url',
  'api_key_sealed',
  'context_window',
] as const;
export type ModelColumns = Pick<WorkspaceModel, (typeof MODEL_COLUMNS)[number]>;

export function createWorkspaceModelRepository(pool: pg.Pool) {
  const writes = rowWrites<ModelColumns & Pick<WorkspaceModel, 'is_default'>>('workspace_models', [
    ...MODEL_COLUMNS,
    'is_default',
  ]);
  /** A change of the workspace's models, one at a time per workspace: the default stays single. */
  const locked = <T>(workspaceId: string, work: (client: pg.PoolClient) => Promise<T>) =>
    inTransaction(pool, async (client) => {
      await client.query('select 1 from workspaces where id = $1 for update', [workspaceId]);
      return work(client);
    });
  const clearDefault = (client: pg.PoolClient, workspaceId: string) =>
    client.query('update workspace_models set is_default = false where workspace_id = $1', [
      workspaceId,
    ]);

  return {
    ...workspaceRows<WorkspaceModel>(pool, {
      table: 'workspace_models',
      orderBy: 't.is_default desc, t.name',
    }),
    /** Adds a model; it becomes the default when asked, or when the workspace has none. */
    insert: (
      id: string,
      workspaceId: string,
      userId: string,
      columns: ModelColumns,
      asked: boolean,
    ) =>
      locked(workspaceId, async (client) => {
        const { rows } = await client.query<{ n: number }>(
          'select count(*)::int as n from workspace_models where workspace_id = $1 and is_default',
          [workspaceId],
        );
        const makeDefault = asked || (rows[0]?.n ?? 0) === 0;
        if (makeDefault) await clearDefault(client, workspaceId);
        const given = { ...columns, is_default: makeDefault };
        await writes.insert(client, id, { workspaceId, userId }, given);
      }),
    /** Writes the columns; a default model is the only one (it takes the default from another). */
    update: (id: string, workspaceId: string, columns: ModelColumns, isDefault: boolean) =>
      locked(workspaceId, async (client) => {
        if (isDefault) await clearDefault(client, workspaceId);
        await writes.update(client, id, workspaceId, { ...columns, is_default: isDefault });
      }),
    /** Deletes the model (false when there was none); a deleted default passes to the oldest left. */
    delete: (workspaceId: string, id: string) =>
      locked(workspaceId, async (client) => {
        const { rows } = await client.query<{ is_default: boolean }>(
          'delete from workspace_models where id = $1 and workspace_id = $2 returning is_default',
          [id, workspaceId],
        );
        if (rows[0]?.is_default) {
          await client.query(
            `update workspace_models set is_default = true where id = (
               select id from workspace_models where workspace_id = $1 order by created_at, id limit 1)`,
            [workspaceId],
          );
        }
        return rows.length > 0;
      }),
    /** The workspace's model of that id, else its default. */
    async chosen(workspaceId: string, model: string | null): Promise<WorkspaceModel | undefined> {
      const { rows } = await pool.query<WorkspaceModel>(
        `select * from workspace_models where workspace_id = $1 and (model = $2 or is_default)
         order by (model = $2) desc limit 1`,
        [workspaceId, model],
      );
      return rows[0];
    },
    /** The workspace's model ids, the default first. */
    async ids(workspaceId: string): Promise<string[]> {
      const { rows } = await pool.query<{ model: string }>(
        'select model from workspace_models where workspace_id = $1 order by is_default desc, name',
        [workspaceId],
      );
      return rows.map((row) => row.model);
    },
  };
}

export type WorkspaceModelRepository = ReturnType<typeof createWorkspaceModelRepository>;
