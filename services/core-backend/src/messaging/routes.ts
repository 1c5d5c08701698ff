/**
 * Meta's webhook of one WhatsApp integration: `GET` the subscription handshake, `POST` the
 * deliveries. Public (Meta holds no Pelita token): the verify token and the signature over the
 * raw body are the proof, checked by the webhooks module.
 */
import { defineRoute, rawBodyOf, type RouteDefinition } from '@pelita/kit';
import { z } from 'zod';
import { VERIFY_TOKEN_MAX } from '../workspace-config/integration-schemas';
import type { Webhooks } from './webhooks';

const Params = z.object({ integrationId: z.uuid() });
const tags = ['integrations'];

export function webhookRoutes(deps: { webhooks: Webhooks }): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/webhooks/whatsapp/:integrationId',
      summary: "Meta's webhook handshake: echoes hub.challenge for the integration's verify token",
      tags,
      public: true,
      request: {
        params: Params,
        query: z.object({
          // Short: a longer query would pass Node's header limit (431) before reaching here.
          'hub.mode': z.string().max(20).optional(),
          'hub.verify_token': z.string().max(VERIFY_TOKEN_MAX).optional(),
          'hub.challenge': z.string().max(200).optional(),
        }),
      },
      responses: {
        200: { description: '`hub.challenge`, as text/plain' },
        403: { description: 'Not `subscribe`, or not the verify token' },
        404: { description: 'No such integration receiving' },
      },
      handler: async ({ params, query }, _req, res) => {
        const challenge = await deps.webhooks.verify(params.integrationId, {
          mode: query['hub.mode'],
          verifyToken: query['hub.verify_token'],
          challenge: query['hub.challenge'],
        });
        // Echoed text: never read as markup.
        res.setHeader('x-content-type-options', 'nosniff');
        res.type('text/plain').send(challenge);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/whatsapp/:integrationId',
      summary: "Meta's webhook deliveries: messages are stored, then answered after the 200",
      description:
        '`X-Hub-Signature-256` must be the HMAC-SHA256 of the raw body with the integration’s app secret (401 otherwise, before the body is read). New messages are stored in the outbox before the answer; a retried delivery of a message already stored adds nothing. Status events are accepted and not answered.',
      tags,
      public: true,
      request: {
        params: Params,
        headers: z.object({ 'x-hub-signature-256': z.string().max(200).optional() }),
      },
      responses: {
        200: {
          description: 'Stored',
          schema: z.object({
            stored: z.number().int(),
            duplicates: z.number().int(),
            statuses: z.number().int(),
          }),
        },
        400: { description: 'A signed body that is not a WhatsApp delivery' },
        401: { description: 'No signature, or not the app secret’s' },
        404: { description: 'No such integration receiving' },
        413: { description: 'A body over the service’s limit (BODY_LIMIT)' },
      },
      handler: ({ params, headers }, req) =>
        deps.webhooks.receive(params.integrationId, rawBodyOf(req), headers['x-hub-signature-256']),
    }),
  ];
}
