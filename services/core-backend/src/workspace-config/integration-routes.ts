/**
 * /api/workspaces/:id/integrations (messaging bridges) and /iframes (the chat widget), all with
 * `workspace.manage`; and the widget's public `GET /embed/:iframeId/config`, answered to pages
 * on the iframe's allowed origins only.
 */
import { defineRoute, itemRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import type { CallerOf } from '../workspaces/caller';
import { workspaceResource } from '../workspaces/collection-routes';
import { Paging } from '../http-schemas';
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
  const tags = ['integrations'];
  const managed = { 403: manage };
  const written = { 403: manage, 409: 'Name taken' };
  const keyed = {
    400: 'Invalid body, or not an active app key of this workspace',
    ...written,
  };

  const integration = workspaceResource(deps.callerOf, {
    segment: 'integrations',
    params: IntegrationParams,
    one: {
      description: 'The integration',
      schema: IntegrationResponse,
      from: toIntegrationResponse,
    },
    missing,
  });
  return [
    ...resourceRoutes(
      integration,
      {
        list: {
          summary: "The workspace's messaging integrations",
          page: { description: 'A page of integrations', schema: IntegrationList },
          query: Paging,
          answers: managed,
        },
        create: {
          summary: 'Connect a WhatsApp Business Cloud API number (the access token is sealed)',
          body: IntegrationBody,
          answers: written,
        },
        show: { summary: 'One integration with its last check', answers: managed },
        change: {
          summary: 'Change an integration (a new bridge, number or token forgets the last check)',
          body: IntegrationPatch,
          answers: written,
        },
        remove: { summary: 'Remove an integration', answers: managed },
      },
      integrations,
    ),
    itemRoute(integration, {
      method: 'post',
      path: '/check',
      summary: 'Ask the bridge about the phone number (WHATSAPP_TIMEOUT); the outcome is recorded',
      answer: { description: 'The bridge knows the number', schema: IntegrationResponse },
      answers: {
        403: 'Needs workspace.manage, or the bridge is at a forbidden address',
        502: 'The bridge refused (bad token, unknown number) or answered nonsense',
        503: 'The bridge is unreachable',
        504: 'The bridge did not answer within WHATSAPP_TIMEOUT',
      },
      run: async (who, p) => toIntegrationResponse(await integrations.check(who, p.integrationId)),
    }),
    ...resourceRoutes(
      workspaceResource(deps.callerOf, {
        segment: 'iframes',
        tags,
        params: IframeParams,
        one: { description: 'The iframe', schema: IframeResponse, from: toIframeResponse },
        missing,
      }),
      {
        list: {
          summary: "The workspace's embeddable chat widgets",
          page: { description: 'A page of iframes', schema: IframeList },
          query: Paging,
          answers: managed,
        },
        create: {
          summary: 'Make a chat widget: allowed origins, an app key of the workspace, a theme',
          body: IframeBody,
          answers: keyed,
        },
        show: { summary: 'One iframe', answers: managed },
        change: {
          summary: 'Change an iframe (theme fields merge into the current theme)',
          body: IframePatch,
          answers: keyed,
        },
        remove: {
          summary: 'Remove an iframe (pages embedding it stop loading it)',
          answers: managed,
        },
      },
      iframes,
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
