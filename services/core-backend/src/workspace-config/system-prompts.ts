/**
 * System prompts of a workspace. The default `persistent` prompt goes before every chat; the
 * default `report` prompt generates reports. Making a prompt the default of its type takes the
 * default from the previous one, in one transaction. Every function is for a workspace already
 * decided (`workspace-config.ts` decides who may ask).
 */
import { randomUUID } from 'node:crypto';
import { conflict, HttpError } from '@pelita/kit';
import { isUniqueViolation } from '../db/database';
import type { Paging } from '../paging';
import type {
  PromptInput,
  PromptType,
  SystemPrompt,
  SystemPromptRepository,
} from './system-prompt-repository';

export type { PromptInput, PromptType, SystemPrompt } from './system-prompt-repository';

const notFound = (id: string) =>
  new HttpError(404, 'system_prompt_not_found', `The system prompt ${id} does not exist`);
const taken = (err: unknown) => {
  throw isUniqueViolation(err) ? conflict('A system prompt of that name exists') : err;
};

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
        .update(id, workspaceId, {
          name: changes.name ?? before.name,
          type: changes.type ?? before.type,
          content: changes.content ?? before.content,
          is_default: changes.is_default ?? before.is_default,
        })
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
