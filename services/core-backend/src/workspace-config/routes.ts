/**
 * /api/workspaces/:id/system-prompts and /models: read by members, changed with
 * `workspace.manage`.
 */
import { itemRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import type { CallerOf } from '../workspaces/caller';
import { workspaceResource } from '../workspaces/collection-routes';
import { Paging } from '../http-schemas';
import {
  ModelBody,
  ModelCheck,
  ModelList,
  ModelParams,
  ModelPatch,
  ModelResponse,
  PromptBody,
  PromptList,
  PromptParams,
  PromptPatch,
  PromptQuery,
  PromptResponse,
  toModelResponse,
  toPromptResponse,
} from './schemas';
import type { WorkspaceConfig } from './workspace-config';

export function workspaceConfigRoutes(deps: {
  workspaceConfig: WorkspaceConfig;
  callerOf: CallerOf;
}): RouteDefinition[] {
  const { prompts, models: store } = deps.workspaceConfig;
  const missing = 'No such workspace or item (or not a member)';
  const manage = 'Needs workspace.manage';
  const changed = { 403: manage, 409: 'Name or model taken' };
  const model = workspaceResource(deps.callerOf, {
    segment: 'models',
    params: ModelParams,
    one: { description: 'The model', schema: ModelResponse, from: toModelResponse },
    missing,
  });
  return [
    ...resourceRoutes(
      workspaceResource(deps.callerOf, {
        segment: 'system-prompts',
        tags: ['system prompts'],
        params: PromptParams,
        one: { description: 'The system prompt', schema: PromptResponse, from: toPromptResponse },
        missing,
      }),
      {
        list: {
          summary: 'System prompts of the workspace (`type` filter)',
          page: { description: 'A page of prompts', schema: PromptList },
          query: PromptQuery,
        },
        create: {
          summary: 'Add a system prompt; `is_default` makes it the one of its type',
          body: PromptBody,
          answers: changed,
        },
        show: { summary: 'One system prompt' },
        change: { summary: 'Change a system prompt', body: PromptPatch, answers: changed },
        remove: { summary: 'Delete a system prompt', answers: { 403: manage } },
      },
      prompts,
    ),
    ...resourceRoutes(
      model,
      {
        list: {
          summary: 'Models the workspace may use, the default first',
          page: { description: 'A page of models', schema: ModelList },
          query: Paging,
        },
        create: {
          summary: 'Add a model (the first becomes the default)',
          body: ModelBody,
          answers: changed,
        },
        show: { summary: 'One model' },
        change: {
          summary: 'Change a model; `is_default: true` moves the default to it',
          body: ModelPatch,
          answers: changed,
        },
        remove: {
          summary: 'Remove a model (a removed default passes to the oldest left)',
          answers: { 403: manage },
        },
      },
      store,
    ),
    itemRoute(model, {
      method: 'post',
      path: '/check',
      summary: "Ask the model's server whether it serves the model",
      answer: { description: 'What the server lists', schema: ModelCheck },
      answers: {
        403: 'Needs workspace.manage, or the server is at a forbidden address',
        502: 'The server answered with an error',
        503: 'The server is unreachable',
        504: 'The server did not answer in time',
      },
      run: (who, p) => store.check(who, p.modelId),
    }),
  ];
}
