/**
 * System prompts of a workspace. The default `persistent` prompt goes before every chat; the
 * default `report` prompt generates reports. Making a prompt the default of its type takes the
 * default from the previous one, in one transaction.
 */
import { randomUUID } from 'node:crypto';
import { conflict, HttpError, inTransaction } from '@pelita/kit';
import type pg from 'pg';
import { isUniqueViolation } from '../db/database';
import type { Paging } from '../paging';

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

export interface PromptInput {
  name: string;
  type: PromptType;
  content: string;
  is_default: boolean;
}

const notFound = (id: string) =>
  new HttpError(404, 'system_prompt_not_found', `The system prompt ${id} does not exist`);
const taken = (err: unknown) => {
  throw isUniqueViolation(err) ? conflict('A system prompt of that name exists') : err;
};

export function createSystemPrompts(pool: pg.Pool) {
  async function find(workspaceId: string, id: string): Promise<SystemPrompt> {
    const { rows } = await pool.query<SystemPrompt>(
      'select * from system_prompts where id = $1 and workspace_id = $2',
      [id, workspaceId],
    );
    if (!rows[0]) throw notFound(id);
    return rows[0];
  }

  /** Writes the prompt; when it becomes a default, the previous default of its type stops being one. */
  async function save(
    workspaceId: string,
    write: (client: pg.PoolClient) => Promise<string>,
    makesDefault: { type: PromptType } | undefined,
  ): Promise<string> {
    return inTransaction(pool, async (client) => {
      if (makesDefault) {
        await client.query(
          'update system_prompts set is_default = false where workspace_id = $1 and type = $2 and is_default',
          [workspaceId, makesDefault.type],
        );
      }
      return write(client).catch(taken);
    });
  }

  return {
    find,
    async list(workspaceId: string, filter: Paging & { type?: PromptType }) {
      const values: unknown[] = [workspaceId];
      let where = 'workspace_id = $1';
      if (filter.type) {
        values.push(filter.type);
        where += ` and type = $${values.length}`;
      }
      const { rows: count } = await pool.query<{ n: number }>(
        `select count(*)::int as n from system_prompts where ${where}`,
        values,
      );
      values.push(filter.limit, (filter.page - 1) * filter.limit);
      const { rows } = await pool.query<SystemPrompt>(
        `select * from system_prompts where ${where} order by type, name
         limit $${values.length - 1} offset $${values.length}`,
        values,
      );
      return { rows, total: count[0]?.n ?? 0 };
    },
    async create(workspaceId: string, userId: string, input: PromptInput) {
      const id = await save(
        workspaceId,
        async (client) => {
          const created = randomUUID();
          await client.query(
            `insert into system_prompts (id, workspace_id, name, type, content, is_default, created_by)
             values ($1, $2, $3, $4, $5, $6, $7)`,
            [created, workspaceId, input.name, input.type, input.content, input.is_default, userId],
          );
          return created;
        },
        input.is_default ? { type: input.type } : undefined,
      );
      return find(workspaceId, id);
    },
    async update(workspaceId: string, id: string, changes: Partial<PromptInput>) {
      const before = await find(workspaceId, id);
      const type = changes.type ?? before.type;
      const becomesDefault = changes.is_default ?? before.is_default;
      await save(
        workspaceId,
        async (client) => {
          await client.query(
            `update system_prompts set name = $3, type = $4, content = $5, is_default = $6,
               updated_at = now() where id = $1 and workspace_id = $2`,
            [
              id,
              workspaceId,
              changes.name ?? before.name,
              type,
              changes.content ?? before.content,
              becomesDefault,
            ],
          );
          return id;
        },
        becomesDefault ? { type } : undefined,
      );
      return find(workspaceId, id);
    },
    async remove(workspaceId: string, id: string): Promise<void> {
      const { rowCount } = await pool.query(
        'delete from system_prompts where id = $1 and workspace_id = $2',
        [id, workspaceId],
      );
      if (rowCount === 0) throw notFound(id);
    },
    /** The default prompt of a type, if the workspace has one (what chat and reports use). */
    async defaultOf(workspaceId: string, type: PromptType): Promise<string | undefined> {
      const { rows } = await pool.query<{ content: string }>(
        'select content from system_prompts where workspace_id = $1 and type = $2 and is_default',
        [workspaceId, type],
      );
      return rows[0]?.content;
    },
  };
}

export type SystemPrompts = ReturnType<typeof createSystemPrompts>;
