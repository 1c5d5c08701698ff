/**
 * `GET /api/v1/health`, the seed's health check: the search cluster's health and which OCR
 * engines this install has a URL for. 503 when the cluster is red or does not answer. Object
 * storage, the summarizer and the engines themselves are not checked (the seed's choice;
 * `/ready` checks Redis and OpenSearch).
 */
import { defineRoute, ErrorBodySchema, type RouteDefinition } from '@pelita/kit';
import { z } from 'zod';
import type { Processing } from '../task-submission';

const SEARCH_STATUSES = ['green', 'yellow', 'red', 'error'] as const;

const HealthBody = z.object({
  status: z.enum(['ok', 'unhealthy']),
  search: z.object({ status: z.enum(SEARCH_STATUSES) }),
  engines: z.object({ cloud: z.boolean(), local: z.boolean() }),
});

export interface HealthRouteDeps {
  /** The cluster's health status (`green`, `yellow`, `red`). */
  clusterStatus: () => Promise<string>;
  engines: Record<Processing, boolean>;
  /** A cluster that has not answered by then counts as `error`. */
  timeoutMs: number;
}

async function searchStatus(deps: HealthRouteDeps): Promise<(typeof SEARCH_STATUSES)[number]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('error'), deps.timeoutMs);
  });
  const status = await Promise.race([deps.clusterStatus().catch(() => 'error'), timeout]).finally(
    () => clearTimeout(timer),
  );
  return SEARCH_STATUSES.find((known) => known === status) ?? 'error';
}

export function healthRoute(deps: HealthRouteDeps): RouteDefinition {
  return defineRoute({
    method: 'get',
    path: '/api/v1/health',
    summary: 'Search cluster health and the OCR engines configured',
    description:
      '200 when the search cluster is green or yellow; 503 when it is red or does not answer ' +
      '(`error`). The 503 body adds `error` (`search_unhealthy`) to the same fields. ' +
      '`engines` says which of OCR_ENGINE_CLOUD_URL and OCR_ENGINE_LOCAL_URL are set.',
    tags: ['operations'],
    responses: {
      200: { description: 'Healthy', schema: HealthBody },
      503: {
        description: 'The search cluster is red or did not answer',
        schema: HealthBody.extend({ error: ErrorBodySchema.shape.error }),
      },
    },
    handler: async (_input, _req, res) => {
      const status = await searchStatus(deps);
      const body = { search: { status }, engines: deps.engines };
      if (status === 'green' || status === 'yellow') {
        res.status(200).json({ status: 'ok', ...body });
        return;
      }
      res.status(503).json({
        status: 'unhealthy',
        ...body,
        error: {
          code: 'search_unhealthy',
          message:
            status === 'red'
              ? 'The search cluster is red'
              : 'The search cluster did not answer its health check',
        },
      });
    },
  });
}
