/** The `system_prompts` table; at most one default prompt per type and workspace. */
import { inTransaction } from '@pelita/kit';
import type pg from 'pg';
import { rowWrites } from '../db/row-writes';
import { workspaceRows } from './workspace-rows-repository';

export type PromptType = 'persistent' | 'report' | 'custom';

export interface SystemPrompt {
  id: string;
  workspace_id: string;
  name: string;
  type: PromptType;
  content: string;
  is_default: boolean;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export const PROMPT_COLUMNS = ['name', 'type', 'content', 'is_default'] as const;
export type PromptInput = Pick<SystemPrompt, (typeof PROMPT_COLUMNS)[number]>;

export function createSystemPromptRepository(pool: pg.Pool) {
  /** Writes a prompt; one becoming a default takes it from its type's previous one, together. */
  const save = (workspaceId: string, prompt: PromptInput, write: (c: pg.PoolClient) => unknown) =>
    inTransaction(pool, async (client) => {
      if (prompt.is_default) {
        await client.query(
          'update system_prompts set is_default = false where workspace_id = $1 and type = $2 and is_default',
          [workspaceId, prompt.type],
        );
      }
      await write(client);
    });
  const writes = rowWrites<PromptInput>('system_prompts', PROMPT_COLUMNS);

  return {
    ...workspaceRows<SystemPrompt>(pool, { table: 'system_prompts', orderBy: 't.type, t.name' }),
    insert: (id: string, workspaceId: string, userId: string, prompt: PromptInput) =>
      save(workspaceId, prompt, (client) =>
        writes.insert(client, id, { workspaceId, userId }, prompt),
      ),
    update: (id: string, workspaceId: string, prompt: PromptInput) =>
      save(workspaceId, prompt, (client) => writes.update(client, id, workspaceId, prompt)),
    /** The content of the workspace's default prompt of a type. */
    async defaultContent(workspaceId: string, type: PromptType): Promise<string | undefined> {
      const { rows } = await pool.query<{ content: string }>(
        'select content from system_prompts where workspace_id = $1 and type = $2 and is_default',
        [workspaceId, type],
      );
      return rows[0]?.content;
    },
  };
}

export type SystemPromptRepository = ReturnType<typeof createSystemPromptRepository>;
