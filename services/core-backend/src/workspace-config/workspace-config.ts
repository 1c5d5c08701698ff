/**
 * A workspace's system prompts and models as a member reads or changes them: any member reads,
 * changing (and asking a model's server) takes `workspace.manage`. Chats read them through
 * `systemPrompts` and `workspaceModels` directly, for a workspace already decided.
 */
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import type { ModelClient } from '../chats/model-client';
import type { Paging } from '../paging';
import type { PromptInput, PromptType, SystemPrompts } from './system-prompts';
import type { ModelInput, WorkspaceModels } from './workspace-models';

export function createWorkspaceConfig(deps: {
  workspaces: MemberCheck;
  systemPrompts: SystemPrompts;
  workspaceModels: WorkspaceModels;
  models: Pick<ModelClient, 'listModels'>;
}) {
  const { systemPrompts: prompts, workspaceModels: store } = deps;
  const member = (actor: Actor) => memberOf(deps.workspaces, actor);
  const manager = (actor: Actor) => memberOf(deps.workspaces, actor, 'workspace.manage');
  return {
    prompts: {
      async list(actor: Actor, filter: Paging & { type?: PromptType }) {
        await member(actor);
        return prompts.list(actor.workspaceId, filter);
      },
      async find(actor: Actor, id: string) {
        await member(actor);
        return prompts.find(actor.workspaceId, id);
      },
      async create(actor: Actor, input: PromptInput) {
        await manager(actor);
        return prompts.create(actor.workspaceId, actor.userId, input);
      },
      async update(actor: Actor, id: string, changes: Partial<PromptInput>) {
        await manager(actor);
        return prompts.update(actor.workspaceId, id, changes);
      },
      async remove(actor: Actor, id: string): Promise<void> {
        await manager(actor);
        await prompts.remove(actor.workspaceId, id);
      },
    },
    models: {
      async list(actor: Actor, paging: Paging) {
        await member(actor);
        return store.list(actor.workspaceId, paging);
      },
      async find(actor: Actor, id: string) {
        await member(actor);
        return store.find(actor.workspaceId, id);
      },
      async create(actor: Actor, input: ModelInput) {
        await manager(actor);
        return store.create(actor.workspaceId, actor.userId, input);
      },
      async update(actor: Actor, id: string, changes: Partial<ModelInput>) {
        await manager(actor);
        return store.update(actor.workspaceId, id, changes);
      },
      async remove(actor: Actor, id: string): Promise<void> {
        await manager(actor);
        await store.remove(actor.workspaceId, id);
      },
      /** Whether the model's server lists the model (its answer, and what it lists). */
      async check(actor: Actor, id: string) {
        await manager(actor);
        const row = await store.find(actor.workspaceId, id);
        const listed = await deps.models.listModels(store.choiceOf(row));
        return { available: listed.includes(row.model), server_models: listed };
      },
    },
  };
}

export type WorkspaceConfig = ReturnType<typeof createWorkspaceConfig>;
