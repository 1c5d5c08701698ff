/**
 * /api/workspaces/:id/integrations (messaging bridges) and /iframes (the chat widget), all with
 * `workspace.manage`; and the widget's public `GET /embed/:iframeId/config`, answered to pages
 * on the iframe's allowed origins only.
 */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import { actorOf, type CallerOf } from '../workspaces/caller';
import { Deleted, Paging, WorkspaceParams } from '../http-schemas';
import {
  EmbedConfig,
  EmbedParams,
  IframeBody,
  IframeList,
  IframeParams,
  IframePatch,
  IframeResponse,
  IntegrationBody,
  IntegrationList,
  IntegrationParams,
  IntegrationPatch,
  IntegrationResponse,
  toIframeResponse,
  toIntegrationResponse,
} from './integration-schemas';
import type { Iframes } from './iframes';
import type { Integrations } from './integrations';

export function integrationRoutes(deps: {
  integrations: Integrations;
  iframes: Iframes;
  callerOf: CallerOf;
}): RouteDefinition[] {
  const { integrations, iframes } = deps;
  const missing = { description: 'No such workspace or item (or not a member)' };
  const manage = { description: 'Needs workspace.manage' };
  const taken = { description: 'Name taken' };
  const actor = (req: Parameters<CallerOf>[0], workspaceId: string) =>
    actorOf(deps.callerOf, req, workspaceId);
  const integration = { description: 'The integration', schema: IntegrationResponse };
  const iframe = { description: 'The iframe', schema: IframeResponse };
  const integrationsPath = '/api/workspaces/:workspaceId/integrations';
  const iframesPath = '/api/workspaces/:workspaceId/iframes';
  const tags = ['integrations'];

  return [
    defineRoute({
      method: 'get',
      path: integrationsPath,
      summary: "The workspace's messaging integrations",
      tags,
      request: { params: WorkspaceParams, query: Paging },
      responses: {
        200: { description: 'A page of integrations', schema: IntegrationList },
        403: manage,
        404: missing,
      },
      handler: async ({ params, query }, req) => {
        const { rows, total } = await integrations.list(
          await actor(req, params.workspaceId),
          query,
        );
        return { data: rows.map(toIntegrationResponse), total, ...query };
      },
    }),
    defineRoute({
      method: 'post',
      path: integrationsPath,
      summary: 'Connect a WhatsApp Business Cloud API number (the access token is sealed)',
      tags,
      successStatus: 201,
      request: { params: WorkspaceParams, body: IntegrationBody },
      responses: { 201: integration, 403: manage, 404: missing, 409: taken },
      handler: async ({ params, body }, req) => {
        return toIntegrationResponse(
          await integrations.create(await actor(req, params.workspaceId), body),
        );
      },
    }),
    defineRoute({
      method: 'get',
      path: `${integrationsPath}/:integrationId`,
      summary: 'One integration with its last check',
      tags,
      request: { params: IntegrationParams },
      responses: { 200: integration, 403: manage, 404: missing },
      handler: async ({ params }, req) => {
        return toIntegrationResponse(
          await integrations.find(await actor(req, params.workspaceId), params.integrationId),
        );
      },
    }),
    defineRoute({
      method: 'patch',
      path: `${integrationsPath}/:integrationId`,
      summary: 'Change an integration (a new bridge, number or token forgets the last check)',
      tags,
      request: { params: IntegrationParams, body: IntegrationPatch },
      responses: { 200: integration, 403: manage, 404: missing, 409: taken },
      handler: async ({ params, body }, req) => {
        return toIntegrationResponse(
          await integrations.update(
            await actor(req, params.workspaceId),
            params.integrationId,
            body,
          ),
        );
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${integrationsPath}/:integrationId`,
      summary: 'Remove an integration',
      tags,
      request: { params: IntegrationParams },
      responses: { 200: { description: 'Deleted', schema: Deleted }, 403: manage, 404: missing },
      handler: async ({ params }, req) => {
        await integrations.remove(await actor(req, params.workspaceId), params.integrationId);
        return { deleted: true };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${integrationsPath}/:integrationId/check`,
      summary: 'Ask the bridge about the phone number (WHATSAPP_TIMEOUT); the outcome is recorded',
      tags,
      request: { params: IntegrationParams },
      responses: {
        200: { description: 'The bridge knows the number', schema: IntegrationResponse },
        403: { description: 'Needs workspace.manage, or the bridge is at a forbidden address' },
        404: missing,
        502: { description: 'The bridge refused (bad token, unknown number) or answered nonsense' },
        503: { description: 'The bridge is unreachable' },
        504: { description: 'The bridge did not answer within WHATSAPP_TIMEOUT' },
      },
      handler: async ({ params }, req) => {
        return toIntegrationResponse(
          await integrations.check(await actor(req, params.workspaceId), params.integrationId),
        );
      },
    }),
    defineRoute({
      method: 'get',
      path: iframesPath,
      summary: "The workspace's embeddable chat widgets",
      tags,
      request: { params: WorkspaceParams, query: Paging },
      responses: {
        200: { description: 'A page of iframes', schema: IframeList },
        403: manage,
        404: missing,
      },
      handler: async ({ params, query }, req) => {
        const { rows, total } = await iframes.list(await actor(req, params.workspaceId), query);
        return { data: rows.map(toIframeResponse), total, ...query };
      },
    }),
    defineRoute({
      method: 'post',
      path: iframesPath,
      summary: 'Make a chat widget: allowed origins, an app key of the workspace, a theme',
      tags,
      successStatus: 201,
      request: { params: WorkspaceParams, body: IframeBody },
      responses: {
        201: iframe,
        400: { description: 'Invalid body, or not an active app key of this workspace' },
        403: manage,
        404: missing,
        409: taken,
      },
      handler: async ({ params, body }, req) => {
        return toIframeResponse(await iframes.create(await actor(req, params.workspaceId), body));
      },
    }),
    defineRoute({
      method: 'get',
      path: `${iframesPath}/:iframeId`,
      summary: 'One iframe',
      tags,
      request: { params: IframeParams },
      responses: { 200: iframe, 403: manage, 404: missing },
      handler: async ({ params }, req) => {
        return toIframeResponse(
          await iframes.find(await actor(req, params.workspaceId), params.iframeId),
        );
      },
    }),
    defineRoute({
      method: 'patch',
      path: `${iframesPath}/:iframeId`,
      summary: 'Change an iframe (theme fields merge into the current theme)',
      tags,
      request: { params: IframeParams, body: IframePatch },
      responses: {
        200: iframe,
        400: { description: 'Invalid body, or not an active app key of this workspace' },
        403: manage,
        404: missing,
        409: taken,
      },
      handler: async ({ params, body }, req) => {
        return toIframeResponse(
          await iframes.update(await actor(req, params.workspaceId), params.iframeId, body),
        );
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${iframesPath}/:iframeId`,
      summary: 'Remove an iframe (pages embedding it stop loading it)',
      tags,
      request: { params: IframeParams },
      responses: { 200: { description: 'Deleted', schema: Deleted }, 403: manage, 404: missing },
      handler: async ({ params }, req) => {
        await iframes.remove(await actor(req, params.workspaceId), params.iframeId);
        return { deleted: true };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/embed/:iframeId/config',
      summary: "The widget's look, for a page on one of the iframe's allowed origins",
      description:
        'Public (no token): answered only when the `Origin` header is one of the allowed origins, the iframe is enabled and its app key is live, with `Access-Control-Allow-Origin` set to that origin. Otherwise 404, the same for every reason.',
      tags,
      public: true,
      request: { params: EmbedParams },
      responses: {
        200: { description: "The widget's configuration", schema: EmbedConfig },
        404: { description: 'No such widget for this origin' },
      },
      handler: async ({ params }, req, res) => {
        // The answer depends on the Origin, the refusal too: no cache may mix them up.
        res.setHeader('vary', 'Origin');
        const origin = req.get('origin');
        const config = await iframes.publicConfig(params.iframeId, origin);
        res.setHeader('access-control-allow-origin', origin!);
        return config;
      },
    }),
  ];
}
