/**
 * Puts the core backend together from its settings: pool, Redis, domain modules, app. `start`
 * applies migrations; `main.ts` and the integration tests both build the service here.
 */
import { createMetrics, type DecideAccess, type Logger, type Service } from '@pelita/kit';
import { Client } from '@opensearch-project/opensearch';
import { Redis } from 'ioredis';
import { createAccessLists } from './access/access-lists';
import { createAppKeys } from './app-keys/app-keys';
import { createApp } from './app';
import { createAnswerPipeline } from './chats/answer-pipeline';
import { createChatStore } from './chats/chat-store';
import { createModelClient } from './chats/model-client';
import { installModelChoice } from './chats/model-choice';
import { embeddingsSettings, installModel, type Settings } from './config';
import { createPool, migrateDatabase } from './db/database';
import { createEmbedder } from './retrieval/embeddings';
import { createKnowledgeIndex, type KnowledgeIndex } from './retrieval/knowledge-index';
import { createUserDirectory } from './users/user-directory';
import { createWorkspaceRoles } from './workspaces/workspace-roles';
import { createWorkspaces } from './workspaces/workspaces';

/** The kit's {@link Service}, plus what the integration tests reach into. */
export interface CoreBackend extends Service {
  knowledge: KnowledgeIndex;
}

export function createCoreBackend(
  settings: Settings,
  logger: Logger,
  options: { decide?: DecideAccess } = {},
): CoreBackend {
  const metrics = createMetrics();
  const pool = createPool(settings.DATABASE_URL, settings.DATABASE_SCHEMA);
  const redis = new Redis(settings.REDIS_URL, {
    maxRetriesPerRequest: 2,
    ...(settings.REDIS_PASSWORD ? { password: settings.REDIS_PASSWORD } : {}),
  });
  const search = new Client({
    node: settings.OPENSEARCH_URL,
    ...(settings.OPENSEARCH_USERNAME && settings.OPENSEARCH_PASSWORD
      ? { auth: { username: settings.OPENSEARCH_USERNAME, password: settings.OPENSEARCH_PASSWORD } }
      : {}),
  });
  const embeddings = embeddingsSettings(settings);
  if (!embeddings) logger.warn('EMBEDDINGS_MODEL is not set: retrieval is BM25 only');
  const knowledge = createKnowledgeIndex({
    search,
    index: settings.KNOWLEDGE_INDEX,
    embedder: embeddings && createEmbedder(embeddings),
  });
  const users = createUserDirectory(pool);
  const workspaces = createWorkspaces(pool, users);
  const access = createAccessLists(pool);
  const chats = createChatStore(pool);
  const answers = createAnswerPipeline({
    chats,
    knowledge,
    access,
    models: createModelClient({
      timeoutMs: settings.LLM_TIMEOUT_MS,
      maxRetries: settings.LLM_MAX_RETRIES,
    }),
    resolveModel: installModelChoice(installModel(settings)),
    systemPrompt: () => Promise.resolve(undefined),
    topicDocuments: () => Promise.resolve([]),
    maximumChatPerRoom: settings.MAXIMUM_CHAT_PER_ROOM,
  });
  if (!settings.SERVICE_TOKEN) logger.warn('SERVICE_TOKEN is not set: /utils refuses every call');

  const app = createApp({
    logger,
    metrics,
    publicKey: settings.JWT_PUBLIC_KEY,
    sessions: redis,
    opaUrl: settings.URL_OPA,
    ...(options.decide ? { decide: options.decide } : {}),
    serviceToken: settings.SERVICE_TOKEN,
    users,
    workspaces,
    access,
    workspaceRoles: createWorkspaceRoles(pool),
    chats,
    answers,
    workspaceModels: () => {
      const model = installModel(settings)?.model;
      return Promise.resolve(model ? [model] : []);
    },
    appKeys: createAppKeys(pool, { lastUsedIntervalMs: settings.APP_KEY_LAST_USED_INTERVAL_MS }),
    readiness: {
      postgres: () => pool.query('select 1'),
      redis: () => redis.ping(),
      opensearch: () => knowledge.ping(),
    },
  });

  return {
    app,
    knowledge,
    async start() {
      const applied = await migrateDatabase(pool, settings.DATABASE_SCHEMA);
      if (applied.length > 0) logger.info({ applied }, 'migrations applied');
      await knowledge.ensureIndex();
    },
    async stop() {
      await pool.end();
      redis.disconnect();
      await search.close();
    },
  };
}
