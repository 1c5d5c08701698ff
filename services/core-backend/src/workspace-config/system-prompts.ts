/**
 * System prompts of a workspace. The default `persistent` prompt goes before every chat; the
 * default `report` prompt generates reports. Making a prompt the default of its type takes the
 * default from the previous one, in one transaction. Every function is for a workspace already
 * decided (`workspace-config.ts` decides who may ask).
 */
import { randomUUID } from 'node:crypto';
import { HttpError } from '@pelita/kit';
import { conflictOnUnique } from '../db/database';
import { changed } from '../db/row-writes';
import type { Paging } from '../paging';
import {
  PROMPT_COLUMNS,
  type PromptInput,
  type PromptType,
  type SystemPrompt,
  type SystemPromptRepository,
} from './system-prompt-repository';

export type { PromptInput, PromptType, SystemPrompt } from './system-prompt-repository';

const notFound = (id: string) =>
  new HttpError(404, 'system_prompt_not_found', `The system prompt ${id} does not exist`);
const taken = conflictOnUnique('A system prompt of that name exists');

export function createSystemPrompts(repository: SystemPromptRepository) {
  async function find(workspaceId: string, id: string): Promise<SystemPrompt> {
    const row = await repository.row(workspaceId, id);
    if (!row) throw notFound(id);
    return row;
  }

  return {
    find,
    list: (workspaceId: string, filter: Paging & { type?: PromptType }) =>
      repository.page(workspaceId, filter, [[(ref) => `t.type = ${ref}`, filter.type]]),
    async create(workspaceId: string, userId: string, input: PromptInput) {
      const id = randomUUID();
      await repository.insert(id, workspaceId, userId, input).catch(taken);
      return find(workspaceId, id);
    },
    async update(workspaceId: string, id: string, changes: Partial<PromptInput>) {
      const before = await find(workspaceId, id);
      await repository
        .update(id, workspaceId, changed(PROMPT_COLUMNS, before, changes))
        .catch(taken);
      return find(workspaceId, id);
    },
    async remove(workspaceId: string, id: string): Promise<void> {
      if (!(await repository.delete(workspaceId, id))) throw notFound(id);
    },
    /** The default prompt of a type, if the workspace has one (what chat and reports use). */
    defaultOf: (workspaceId: string, type: PromptType) =>
      repository.defaultContent(workspaceId, type),
  };
}

export type SystemPrompts = ReturnType<typeof createSystemPrompts>;
