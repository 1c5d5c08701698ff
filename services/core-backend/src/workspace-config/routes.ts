/**
 * /api/workspaces/:id/system-prompts and /models: read by members, changed with
 * `workspace.manage`.
 */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import { actorOf, type CallerOf } from '../workspaces/caller';
import { Deleted, Paging, WorkspaceParams } from '../http-schemas';
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
  const missing = { description: 'No such workspace or item (or not a member)' };
  const manage = { description: 'Needs workspace.manage' };
  const taken = { description: 'Name or model taken' };
  const actor = (req: Parameters<CallerOf>[0], workspaceId: string) =>
    actorOf(deps.callerOf, req, workspaceId);
  const prompt = { description: 'The system prompt', schema: PromptResponse };
  const model = { description: 'The model', schema: ModelResponse };
  const promptsPath = '/api/workspaces/:workspaceId/system-prompts';
  const modelsPath = '/api/workspaces/:workspaceId/models';
  return [
    defineRoute({
      method: 'get',
      path: promptsPath,
      summary: 'System prompts of the workspace (`type` filter)',
      tags: ['system prompts'],
      request: { params: WorkspaceParams, query: PromptQuery },
      responses: { 200: { description: 'A page of prompts', schema: PromptList }, 404: missing },
      handler: async ({ params, query }, req) => {
        const { rows, total } = await prompts.list(await actor(req, params.workspaceId), query);
        return { data: rows.map(toPromptResponse), total, page: query.page, limit: query.limit };
      },
    }),
    defineRoute({
      method: 'post',
      path: promptsPath,
      summary: 'Add a system prompt; `is_default` makes it the one of its type',
      tags: ['system prompts'],
      successStatus: 201,
      request: { params: WorkspaceParams, body: PromptBody },
      responses: { 201: prompt, 403: manage, 404: missing, 409: taken },
      handler: async ({ params, body }, req) => {
        return toPromptResponse(await prompts.create(await actor(req, params.workspaceId), body));
      },
    }),
    defineRoute({
      method: 'get',
      path: `${promptsPath}/:promptId`,
      summary: 'One system prompt',
      tags: ['system prompts'],
      request: { params: PromptParams },
      responses: { 200: prompt, 404: missing },
      handler: async ({ params }, req) => {
        return toPromptResponse(
          await prompts.find(await actor(req, params.workspaceId), params.promptId),
        );
      },
    }),
    defineRoute({
      method: 'patch',
      path: `${promptsPath}/:promptId`,
      summary: 'Change a system prompt',
      tags: ['system prompts'],
      request: { params: PromptParams, body: PromptPatch },
      responses: { 200: prompt, 403: manage, 404: missing, 409: taken },
      handler: async ({ params, body }, req) => {
        return toPromptResponse(
          await prompts.update(await actor(req, params.workspaceId), params.promptId, body),
        );
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${promptsPath}/:promptId`,
      summary: 'Delete a system prompt',
      tags: ['system prompts'],
      request: { params: PromptParams },
      responses: { 200: { description: 'Deleted', schema: Deleted }, 403: manage, 404: missing },
      handler: async ({ params }, req) => {
        await prompts.remove(await actor(req, params.workspaceId), params.promptId);
        return { deleted: true };
      },
    }),
    defineRoute({
      method: 'get',
      path: modelsPath,
      summary: 'Models the workspace may use, the default first',
      tags: ['models'],
      request: { params: WorkspaceParams, query: Paging },
      responses: { 200: { description: 'A page of models', schema: ModelList }, 404: missing },
      handler: async ({ params, query }, req) => {
        const { rows, total } = await store.list(await actor(req, params.workspaceId), query);
        return { data: rows.map(toModelResponse), total, ...query };
      },
    }),
    defineRoute({
      method: 'post',
      path: modelsPath,
      summary: 'Add a model (the first becomes the default)',
      tags: ['models'],
      successStatus: 201,
      request: { params: WorkspaceParams, body: ModelBody },
      responses: { 201: model, 403: manage, 404: missing, 409: taken },
      handler: async ({ params, body }, req) => {
        return toModelResponse(await store.create(await actor(req, params.workspaceId), body));
      },
    }),
    defineRoute({
      method: 'get',
      path: `${modelsPath}/:modelId`,
      summary: 'One model',
      tags: ['models'],
      request: { params: ModelParams },
      responses: { 200: model, 404: missing },
      handler: async ({ params }, req) => {
        return toModelResponse(
          await store.find(await actor(req, params.workspaceId), params.modelId),
        );
      },
    }),
    defineRoute({
      method: 'patch',
      path: `${modelsPath}/:modelId`,
      summary: 'Change a model; `is_default: true` moves the default to it',
      tags: ['models'],
      request: { params: ModelParams, body: ModelPatch },
      responses: { 200: model, 403: manage, 404: missing, 409: taken },
      handler: async ({ params, body }, req) => {
        return toModelResponse(
          await store.update(await actor(req, params.workspaceId), params.modelId, body),
        );
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${modelsPath}/:modelId`,
      summary: 'Remove a model (a removed default passes to the oldest left)',
      tags: ['models'],
      request: { params: ModelParams },
      responses: { 200: { description: 'Deleted', schema: Deleted }, 403: manage, 404: missing },
      handler: async ({ params }, req) => {
        await store.remove(await actor(req, params.workspaceId), params.modelId);
        return { deleted: true };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${modelsPath}/:modelId/check`,
      summary: "Ask the model's server whether it serves the model",
      tags: ['models'],
      request: { params: ModelParams },
      responses: {
        200: { description: 'What the server lists', schema: ModelCheck },
        403: { description: 'Needs workspace.manage, or the server is at a forbidden address' },
        404: missing,
        502: { description: 'The server answered with an error' },
        503: { description: 'The server is unreachable' },
        504: { description: 'The server did not answer in time' },
      },
      handler: async ({ params }, req) =>
        store.check(await actor(req, params.workspaceId), params.modelId),
    }),
  ];
}
