/**
 * /api/workspaces/:id/integrations (messaging bridges) and /iframes (the chat widget), all with
 * `workspace.manage`; and the widget's public `GET /embed/:iframeId/config`, answered to pages
 * on the iframe's allowed origins only.
 */
import { defineRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import { actorOf, type CallerOf } from '../workspaces/caller';
import { Paging, WorkspaceParams } from '../http-schemas';
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
  const missing = 'No such workspace or item (or not a member)';
  const manage = 'Needs workspace.manage';
  const actor = (req: Parameters<CallerOf>[0], workspaceId: string) =>
    actorOf(deps.callerOf, req, workspaceId);
  const integrationsPath = '/api/workspaces/:workspaceId/integrations';
  const iframesPath = '/api/workspaces/:workspaceId/iframes';
  const tags = ['integrations'];
  const caller = (req: Parameters<CallerOf>[0], params: { workspaceId: string }) =>
    actor(req, params.workspaceId);
  const managed = { 403: manage };
  const written = { 403: manage, 409: 'Name taken' };
  const keyed = {
    400: 'Invalid body, or not an active app key of this workspace',
    ...written,
  };

  return [
    ...resourceRoutes(
      {
        tags,
        path: integrationsPath,
        item: '/:integrationId',
        params: { collection: WorkspaceParams, item: IntegrationParams },
        caller,
        one: {
          description: 'The integration',
          schema: IntegrationResponse,
          from: toIntegrationResponse,
        },
        missing,
      },
      {
        list: {
          summary: "The workspace's messaging integrations",
          page: { description: 'A page of integrations', schema: IntegrationList },
          query: Paging,
          run: (who, query) => integrations.list(who, query),
          answers: managed,
        },
        create: {
          summary: 'Connect a WhatsApp Business Cloud API number (the access token is sealed)',
          body: IntegrationBody,
          run: (who, body) => integrations.create(who, body),
          answers: written,
        },
        show: {
          summary: 'One integration with its last check',
          run: (who, p) => integrations.find(who, p.integrationId),
          answers: managed,
        },
        change: {
          summary: 'Change an integration (a new bridge, number or token forgets the last check)',
          body: IntegrationPatch,
          run: (who, p, body) => integrations.update(who, p.integrationId, body),
          answers: written,
        },
        remove: {
          summary: 'Remove an integration',
          run: (who, p) => integrations.remove(who, p.integrationId),
          answers: managed,
        },
      },
    ),
    defineRoute({
      method: 'post',
      path: `${integrationsPath}/:integrationId/check`,
      summary: 'Ask the bridge about the phone number (WHATSAPP_TIMEOUT); the outcome is recorded',
      tags,
      request: { params: IntegrationParams },
      responses: {
        200: { description: 'The bridge knows the number', schema: IntegrationResponse },
        403: { description: 'Needs workspace.manage, or the bridge is at a forbidden address' },
        404: { description: missing },
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
    ...resourceRoutes(
      {
        tags,
        path: iframesPath,
        item: '/:iframeId',
        params: { collection: WorkspaceParams, item: IframeParams },
        caller,
        one: { description: 'The iframe', schema: IframeResponse, from: toIframeResponse },
        missing,
      },
      {
        list: {
          summary: "The workspace's embeddable chat widgets",
          page: { description: 'A page of iframes', schema: IframeList },
          query: Paging,
          run: (who, query) => iframes.list(who, query),
          answers: managed,
        },
        create: {
          summary: 'Make a chat widget: allowed origins, an app key of the workspace, a theme',
          body: IframeBody,
          run: (who, body) => iframes.create(who, body),
          answers: keyed,
        },
        show: {
          summary: 'One iframe',
          run: (who, p) => iframes.find(who, p.iframeId),
          answers: managed,
        },
        change: {
          summary: 'Change an iframe (theme fields merge into the current theme)',
          body: IframePatch,
          run: (who, p, body) => iframes.update(who, p.iframeId, body),
          answers: keyed,
        },
        remove: {
          summary: 'Remove an iframe (pages embedding it stop loading it)',
          run: (who, p) => iframes.remove(who, p.iframeId),
          answers: managed,
        },
      },
    ),
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
