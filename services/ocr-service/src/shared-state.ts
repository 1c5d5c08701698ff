/**
 * What the task API and the workers share, opened from the settings the same way in both: the
 * queue and the status records in Redis, the result index and summary indexes in OpenSearch,
 * and object storage. Nothing connects until first used (ioredis `lazyConnect`).
 */
import { createOpenSearchClient, searchLayout } from '@pelita/kit';
import { createRedisClient } from '@pelita/kit/redis-client';
import type { Client } from '@opensearch-project/opensearch';
import type { Redis } from 'ioredis';
import type { Settings } from './config';
import { createTaskQueue, type TaskQueue } from './queue/task-queue';
import { createChunkIndex, type ChunkIndex } from './results/chunk-index';
import { createStatusStore, type StatusStore } from './status/status-store';
import { createDocumentStore, type DocumentStore } from './storage/document-store';
import { createSummaryIndex, type SummaryIndex } from './summaries/summary-index';

export interface SharedState {
  redis: Redis;
  queue: TaskQueue;
  /** The summaries' own queue: OCR slots hand summaries to it, summary slots take them. */
  summaryQueue: TaskQueue;
  statuses: StatusStore;
  search: Client;
  chunks: ChunkIndex;
  summaries: SummaryIndex;
  documents: DocumentStore;
  /** Closes every connection. */
  close(): Promise<void>;
}

/** A Redis connection of its own (a worker's blocking reads must not hold up other commands). */
export function connectRedis(settings: Settings): Redis {
  return createRedisClient(settings, { lazyConnect: true });
}

export function queueOptions(settings: Settings) {
  return {
    stream: `${settings.REDIS_KEY_PREFIX}:queue`,
    group: 'ocr-workers',
    maxLength: settings.MAX_QUEUED_TASKS,
    claimIdleMs: settings.CLAIM_IDLE_MS,
    maxDeliveries: settings.MAX_DELIVERIES,
  };
}

/** The summaries' queue: a stream and consumer group apart from the OCR tasks'. */
export function summaryQueueOptions(settings: Settings) {
  return {
    stream: `${settings.REDIS_KEY_PREFIX}:summaries`,
    group: 'summary-workers',
    maxLength: settings.MAX_QUEUED_SUMMARIES,
    claimIdleMs: settings.CLAIM_IDLE_MS,
    maxDeliveries: settings.MAX_DELIVERIES,
  };
}

export function openSharedState(settings: Settings): SharedState {
  const redis = connectRedis(settings);
  const search = createOpenSearchClient(settings);
  const documents = createDocumentStore(settings);
  return {
    redis,
    queue: createTaskQueue(redis, queueOptions(settings)),
    summaryQueue: createTaskQueue(redis, summaryQueueOptions(settings)),
    statuses: createStatusStore(redis, {
      prefix: settings.REDIS_KEY_PREFIX,
      keep: settings.STATUS_RECORDS_KEPT,
    }),
    search,
    chunks: createChunkIndex(search, settings.INDEX_PDF_PARSING_RESULTS, searchLayout(settings)),
    summaries: createSummaryIndex(
      search,
      {
        document: settings.INDEX_DOCUMENT_SUMMARIZE,
        chunk: settings.INDEX_DOCUMENT_SUMMARIZE_CHUNK,
      },
      searchLayout(settings),
    ),
    documents,
    async close() {
      documents.close();
      await search.close();
      redis.disconnect();
    },
  };
}
