/** `POST /proxy`: forward the described call and pass the target's answer through. */
import { addToAccessLog, defineRoute, ErrorBodySchema, type RouteDefinition } from '@pelita/kit';
import { ProxyRequest } from '../forward/connection';
import type { Forwarder } from '../forward/forward';
import { callerGone, sendUpstreamAnswer } from './upstream-answer';

export interface ProxyRouteDeps {
  forwarder: Forwarder;
}

export function proxyRoute({ forwarder }: ProxyRouteDeps): RouteDefinition {
  return defineRoute({
    method: 'post',
    path: '/proxy',
    summary: 'Forward one described HTTP call and return the target API answer',
    description:
      'Applies the described authentication, sends the request to `connection.host` + ' +
      '`connection.endpoint.path`, and answers with the target status, headers and body as they ' +
      'came (hop-by-hop headers dropped). Only public addresses are reached unless ALLOWED_TARGETS ' +
      'lists the target.',
    tags: ['proxy'],
    request: { body: ProxyRequest },
    responses: {
      200: { description: "The target's answer, with the target's own status (any, not only 200)" },
      400: {
        description: '`connection`, `host` or `endpoint` missing or invalid',
        schema: ErrorBodySchema,
      },
      401: {
        description: 'PROXY_SERVICE_TOKEN is set and the caller did not send it',
        schema: ErrorBodySchema,
      },
      403: {
        description: 'The target address is not public and not allowed (`target_forbidden`)',
        schema: ErrorBodySchema,
      },
      500: {
        description:
          'The forwarded request or the JWT login failed (`upstream_error`, `login_failed`)',
        schema: ErrorBodySchema,
      },
      502: {
        description: 'The answer exceeds MAX_RESPONSE_BYTES (`upstream_response_too_large`)',
        schema: ErrorBodySchema,
      },
      504: {
        description: 'No full answer within OUTBOUND_TIMEOUT_MS (`upstream_timeout`)',
        schema: ErrorBodySchema,
      },
    },
    handler: async ({ body }, _req, res) => {
      const answer = await forwarder.forward(body.connection, {
        record: (fields) => addToAccessLog(res, fields),
        callerGone: callerGone(res),
      });
      sendUpstreamAnswer(res, answer);
    },
  });
}
