/**
 * /api/workspaces/:id/system-prompts and /models: read by members, changed with
 * `workspace.manage`.
 */
import { defineRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import { actorOf, type CallerOf } from '../workspaces/caller';
import { Paging, WorkspaceParams } from '../http-schemas';
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
  const caller = (req: Parameters<CallerOf>[0], params: { workspaceId: string }) =>
    actorOf(deps.callerOf, req, params.workspaceId);
  const promptsPath = '/api/workspaces/:workspaceId/system-prompts';
  const modelsPath = '/api/workspaces/:workspaceId/models';
  return [
    // The list of prompts answers its page without echoing the `type` filter.
    defineRoute({
      method: 'get',
      path: promptsPath,
      summary: 'System prompts of the workspace (`type` filter)',
      tags: ['system prompts'],
      request: { params: WorkspaceParams, query: PromptQuery },
      responses: {
        200: { description: 'A page of prompts', schema: PromptList },
        404: { description: missing },
      },
      handler: async ({ params, query }, req) => {
        const { rows, total } = await prompts.list(await caller(req, params), query);
        return { data: rows.map(toPromptResponse), total, page: query.page, limit: query.limit };
      },
    }),
    ...resourceRoutes(
      {
        tags: ['system prompts'],
        path: promptsPath,
        item: '/:promptId',
        params: { collection: WorkspaceParams, item: PromptParams },
        caller,
        one: { description: 'The system prompt', schema: PromptResponse, from: toPromptResponse },
        missing,
      },
      {
        create: {
          summary: 'Add a system prompt; `is_default` makes it the one of its type',
          body: PromptBody,
          run: (who, body) => prompts.create(who, body),
          answers: changed,
        },
        show: { summary: 'One system prompt', run: (who, p) => prompts.find(who, p.promptId) },
        change: {
          summary: 'Change a system prompt',
          body: PromptPatch,
          run: (who, p, body) => prompts.update(who, p.promptId, body),
          answers: changed,
        },
        remove: {
          summary: 'Delete a system prompt',
          run: (who, p) => prompts.remove(who, p.promptId),
          answers: { 403: manage },
        },
      },
    ),
    ...resourceRoutes(
      {
        tags: ['models'],
        path: modelsPath,
        item: '/:modelId',
        params: { collection: WorkspaceParams, item: ModelParams },
        caller,
        one: { description: 'The model', schema: ModelResponse, from: toModelResponse },
        missing,
      },
      {
        list: {
          summary: 'Models the workspace may use, the default first',
          page: { description: 'A page of models', schema: ModelList },
          query: Paging,
          run: (who, query) => store.list(who, query),
        },
        create: {
          summary: 'Add a model (the first becomes the default)',
          body: ModelBody,
          run: (who, body) => store.create(who, body),
          answers: changed,
        },
        show: { summary: 'One model', run: (who, p) => store.find(who, p.modelId) },
        change: {
          summary: 'Change a model; `is_default: true` moves the default to it',
          body: ModelPatch,
          run: (who, p, body) => store.update(who, p.modelId, body),
          answers: changed,
        },
        remove: {
          summary: 'Remove a model (a removed default passes to the oldest left)',
          run: (who, p) => store.remove(who, p.modelId),
          answers: { 403: manage },
        },
      },
    ),
    defineRoute({
      method: 'post',
      path: `${modelsPath}/:modelId/check`,
      summary: "Ask the model's server whether it serves the model",
      tags: ['models'],
      request: { params: ModelParams },
      responses: {
        200: { description: 'What the server lists', schema: ModelCheck },
        403: { description: 'Needs workspace.manage, or the server is at a forbidden address' },
        404: { description: missing },
        502: { description: 'The server answered with an error' },
        503: { description: 'The server is unreachable' },
        504: { description: 'The server did not answer in time' },
      },
      handler: async ({ params }, req) => store.check(await caller(req, params), params.modelId),
    }),
  ];
}
