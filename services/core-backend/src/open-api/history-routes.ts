/**
 * The seed's chat history open API (part A), exact:
 * `GET /v1/api/open-api/workspaces/:workspace_id/history` with an app key and `X-SESSION-ID`.
 */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import { z } from 'zod';
import { appKeyOf, requireAppKey } from '../app-keys/require-app-key';
import { ChatMessageRecord, toChatMessageRecord } from '../chats/schemas';
import type { OpenApiRouteDeps } from './chat-routes';

const MAX_LIMIT = 10_000;

const Query = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(300),
  /** Incremental export: the messages after this one, oldest first (`page` is then ignored). */
  after_id: z.uuid().optional(),
});
const Headers = z.object({
  authorization: z.string().optional(),
  'x-session-id': z.string().min(1).max(200).optional(),
});
const HistoryResponse = z.object({
  code: z.number().int(),
  data: z.object({
    results: z.array(ChatMessageRecord),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
  }),
});

export function openApiHistoryRoutes(deps: OpenApiRouteDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/api/open-api/workspaces/:workspace_id/history',
      summary: 'Chat history of one session (app key)',
      description:
        "Only sessions made with this key (or with keys it was told to read, `reads_sessions_of`) whose answers used nothing outside the key's sources; any other session reads as empty. `results[0]` is the newest message; `total` counts the messages of the session. With `after_id`, the messages after that one, oldest first: an export can resume where it stopped, and a message that commits late is never skipped (positions follow commit order). A session without messages (or unknown) answers an empty page; without `X-SESSION-ID` the answer is 400; `limit` above 10000 is 400, not cut.",
      tags: ['open api'],
      public: true,
      before: [requireAppKey(deps.appKeys)],
      request: {
        params: z.object({ workspace_id: z.string().min(1).max(100) }),
        query: Query,
        headers: Headers,
      },
      responses: {
        200: { description: 'A page of the history', schema: HistoryResponse },
        400: { description: 'No X-SESSION-ID, or a bad page, limit or cursor' },
        403: { description: 'Invalid application key, or a key of another workspace' },
      },
      handler: async ({ params, query, headers }, _req, res) => {
        const { messages, total } = await deps.openApi.history(
          appKeyOf(res.locals),
          params.workspace_id,
          headers['x-session-id'],
          {
            page: query.page,
            limit: query.limit,
            ...(query.after_id ? { afterId: query.after_id } : {}),
          },
        );
        return {
          code: 200,
          data: {
            results: messages.map(toChatMessageRecord),
            total,
            page: query.after_id ? 1 : query.page,
            limit: query.limit,
          },
        };
      },
    }),
  ];
}
