/**
 * Moves an install's documents from the index it had to itself (the per-install layout, no
 * tenant field) into the index it now shares, through the tenant's handle (tenant field, routing
 * and id prefix added), then deletes the old index. Run by the service at start: safe to run
 * again, by several replicas at once, and after a run that stopped halfway.
 *
 * The old index is made read-only first: a pod still running the previous settings during the
 * rollout gets a refused write (its caller sees the error) instead of one lost after the copy.
 * A document already in the shared index is newer than its old copy and is kept (`create`).
 */
import type { Client } from '@opensearch-project/opensearch';
import { errorMessage } from './error-message';
import type { Logger } from './logger';
import type { TenantIndex } from './tenant-index';

const BATCH = 500;

/** Answers how many documents were moved (0 when there was no old index). */
export async function moveLegacyIndex(
  client: Client,
  legacy: string | undefined,
  target: TenantIndex,
): Promise<number> {
  if (!legacy || legacy === target.name) return 0;
  if (!(await client.indices.exists({ index: legacy })).body) return 0;
  await client.indices.putSettings({ index: legacy, body: { 'index.blocks.write': true } });
  let moved = 0;
  let page = await client.search({
    index: legacy,
    scroll: '2m',
    body: { size: BATCH, sort: ['_doc'] },
  });
  try {
    for (;;) {
      const hits = page.body.hits.hits;
      if (hits.length === 0) break;
      await target.bulk(
        hits.map((hit) => ({
          create: { id: hit._id ?? '', document: hit._source as Record<string, unknown> },
        })),
      );
      moved += hits.length;
      const scrollId = page.body._scroll_id;
      if (!scrollId) break;
      page = await client.scroll({ body: { scroll_id: scrollId, scroll: '2m' } });
    }
  } finally {
    const scrollId = page.body._scroll_id;
    if (scrollId) await client.clearScroll({ body: { scroll_id: scrollId } }).catch(() => {});
  }
  await target.refresh();
  await client.indices.delete({ index: legacy }).catch((err: unknown) => {
    // Another replica moved it as well and deleted it first.
    if ((err as { meta?: { statusCode?: number } }).meta?.statusCode !== 404) throw err;
  });
  return moved;
}

/**
 * Runs a move without holding up the start (a large index takes minutes, longer than a liveness
 * probe waits): until it is done, searches miss the documents not yet moved. A move that fails
 * leaves the old index read-only and whole; the next start carries on.
 */
export function moveInBackground(
  logger: Logger,
  legacy: string | undefined,
  move: (legacy: string) => Promise<number>,
): Promise<void> {
  if (!legacy) return Promise.resolve();
  return move(legacy).then(
    (moved) => {
      if (moved > 0) logger.info({ legacy, moved }, 'moved the documents of a per-install index');
    },
    (err: unknown) =>
      logger.error(
        { legacy, err: errorMessage(err) },
        'moving the documents of a per-install index failed (retried at the next start)',
      ),
  );
}
