/**
 * A workspace's system prompts and models as a member reads or changes them: any member reads,
 * changing (and asking a model's server) takes `workspace.manage`. Chats read them through
 * `systemPrompts` and `workspaceModels` directly, for a workspace already decided.
 */
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import type { ModelClient } from '../chats/model-client';
import type { Paging } from '../paging';
import type { PromptInput, PromptType, SystemPrompt, SystemPrompts } from './system-prompts';
import type { ModelInput, WorkspaceModel, WorkspaceModels } from './workspace-models';

/** What a workspace's prompts and models both offer, for a workspace already decided. */
interface WorkspaceStore<Row, Input, Filter> {
  list(workspaceId: string, filter: Filter): Promise<{ rows: Row[]; total: number }>;
  find(workspaceId: string, id: string): Promise<Row>;
  create(workspaceId: string, userId: string, input: Input): Promise<Row>;
  update(workspaceId: string, id: string, changes: Partial<Input>): Promise<Row>;
  remove(workspaceId: string, id: string): Promise<void>;
}

export function createWorkspaceConfig(deps: {
  workspaces: MemberCheck;
  systemPrompts: SystemPrompts;
  workspaceModels: WorkspaceModels;
  models: Pick<ModelClient, 'listModels'>;
}) {
  const { workspaceModels: store } = deps;
  const member = (actor: Actor) => memberOf(deps.workspaces, actor);
  const manager = (actor: Actor) => memberOf(deps.workspaces, actor, 'workspace.manage');
  /** The store in the actor's workspace: any member reads, a manager changes. */
  const asked = <Row, Input, Filter>(items: WorkspaceStore<Row, Input, Filter>) => ({
    async list(actor: Actor, filter: Filter) {
      await member(actor);
      return items.list(actor.workspaceId, filter);
    },
    async find(actor: Actor, id: string) {
      await member(actor);
      return items.find(actor.workspaceId, id);
    },
    async create(actor: Actor, input: Input) {
      await manager(actor);
      return items.create(actor.workspaceId, actor.userId, input);
    },
    async update(actor: Actor, id: string, changes: Partial<Input>) {
      await manager(actor);
      return items.update(actor.workspaceId, id, changes);
    },
    async remove(actor: Actor, id: string): Promise<void> {
      await manager(actor);
      await items.remove(actor.workspaceId, id);
    },
  });
  return {
    prompts: asked<SystemPrompt, PromptInput, Paging & { type?: PromptType }>(deps.systemPrompts),
    models: {
      ...asked<WorkspaceModel, ModelInput, Paging>(store),
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
