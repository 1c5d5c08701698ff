/**
 * Puts the core backend together from its settings: pool, Redis, domain modules, app. `start`
 * applies migrations; `main.ts` and the integration tests both build the service here.
 */
import {
  createActivityLog,
  createActivityRepository,
  createMetrics,
  createOpenSearchClient,
  observePgPool,
  createTargetPolicy,
  type ActivityRepository,
  type DecideAccess,
  type Logger,
  type Service,
} from '@pelita/kit';
import { createObjectStore } from '@pelita/kit/object-store';
import { createRedisClient } from '@pelita/kit/redis-client';
import { createAccessLists } from './access/access-lists';
import { createResourceAccess } from './access/resource-access';
import { publicKeySource } from './auth/public-key';
import { createSignInRelay } from './auth/sign-in-relay';
import { createAppKeyRepository } from './app-keys/app-key-repository';
import { createAppKeys } from './app-keys/app-keys';
import { createApp } from './app';
import type { Area } from './area';
import { accessRoutes } from './access/access-routes';
import { appKeyRoutes } from './app-keys/routes';
import { signInRoutes } from './auth/sign-in-routes';
import { chatRoutes } from './chats/chat-routes';
import { reportRoutes } from './chats/report-routes';
import { roomRoutes } from './chats/room-routes';
import { dashboardRoutes } from './dashboard/routes';
import { embedRoutes } from './embed/routes';
import { pageRoutes } from './embed/page-routes';
import { openApiChatRoutes } from './open-api/chat-routes';
import { openApiHistoryRoutes } from './open-api/history-routes';
import { searchRoutes } from './retrieval/routes';
import { sourceRoutes } from './sources/routes';
import { utilRoutes } from './users/utils-routes';
import { integrationRoutes } from './workspace-config/integration-routes';
import { workspaceConfigRoutes } from './workspace-config/routes';
import { adminRoutes } from './workspaces/admin-routes';
import { callerOf } from './workspaces/caller';
import { workspaceRoleRoutes } from './workspaces/role-routes';
import { workspaceRoutes } from './workspaces/routes';
import {
  createAnswerPipeline,
  type ResolveModel,
  type SystemPrompt,
} from './chats/answer-pipeline';
import { createChatStore } from './chats/chat-store';
import { createKeySessions } from './chats/key-sessions';
import { createReports } from './chats/reports';
import { createModelClient } from './chats/model-client';
import { createRooms } from './chats/rooms';
import { createSourceLookups } from './chats/source-lookups';
import { audiosArea } from './audios/area';
import type { AudioWorker } from './audios/audio-worker';
import { embeddingsSettings, installModel, s3Configured, type Settings } from './config';
import { documentsArea } from './documents/area';
import type { DocumentFollower } from './documents/document-follower';
import { createOcrArtifacts } from './documents/ocr-artifacts';
import { createOcrClient } from './documents/ocr-client';
import { createOriginals } from './documents/originals';
import { topicsArea } from './topics/area';
import { createDashboard } from './dashboard/dashboard';
import { createDeletions } from './deletion/deletions';
import { createApis } from './sources/apis';
import { createDatabases } from './sources/databases';
import { createDbProxyClient, createHttpProxyClient } from './sources/proxy-clients';
import { createSecretBox } from './crypto/secret-box';
import { createIframes } from './workspace-config/iframes';
import { createVisitorLimit } from './workspace-config/widget-visitor-limit';
import { createIntegrations } from './workspace-config/integrations';
import { createMessagingBridge } from './workspace-config/messaging-bridge';
import { createSystemPrompts } from './workspace-config/system-prompts';
import { createWorkspaceConfig } from './workspace-config/workspace-config';
import { createWorkspaceModels } from './workspace-config/workspace-models';
import { createPool, migrateDatabase } from './db/database';
import { createEmbedder } from './retrieval/embeddings';
import { createKnowledgeIndex, type KnowledgeIndex } from './retrieval/knowledge-index';
import { createRetriever } from './retrieval/retriever';
import { createSearch } from './retrieval/search';
import { createUserDirectory } from './users/user-directory';
import { createWorkspaceRoles } from './workspaces/workspace-roles';
import { createWorkspaces } from './workspaces/workspaces';

/** The kit's {@link Service}, plus what the integration tests reach into. */
export interface CoreBackend extends Service {
  knowledge: KnowledgeIndex;
  /** The activity log's index (tests refresh it to read their writes). */
  activity: ActivityRepository;
  /** Unset without URL_OCR. */
  follower: DocumentFollower | undefined;
  /** Unset without S3 or a speech-to-text server. */
  audioWorker: AudioWorker | undefined;
}

export function createCoreBackend(
  settings: Settings,
  logger: Logger,
  options: { decide?: DecideAccess } = {},
): CoreBackend {
  const metrics = createMetrics();
  const pool = createPool(settings.DATABASE_URL, settings.DATABASE_SCHEMA);
  observePgPool(metrics.registry, pool);
  const redis = createRedisClient(settings, { keyPrefix: settings.REDIS_KEY_PREFIX });
  const search = createOpenSearchClient(settings);
  const activity = createActivityRepository(
    settings.OPENSEARCH_URL,
    settings.INDEX_USER_ACTIVITY_LOG,
    settings.OPENSEARCH_USERNAME && settings.OPENSEARCH_PASSWORD
      ? { username: settings.OPENSEARCH_USERNAME, password: settings.OPENSEARCH_PASSWORD }
      : undefined,
  );
  const embeddings = embeddingsSettings(settings);
  if (!embeddings) logger.warn('EMBEDDINGS_MODEL is not set: retrieval is BM25 only');
  const knowledge = createKnowledgeIndex({
    search,
    index: settings.KNOWLEDGE_INDEX,
    embedder: embeddings && createEmbedder(embeddings),
  });
  const publicKey = publicKeySource({
    pem: settings.JWT_PUBLIC_KEY,
    userServiceUrl: settings.URL_USER,
    logger,
  });
  const users = createUserDirectory(pool);
  const access = createAccessLists(pool);
  const chats = createChatStore(pool);
  const secrets = createSecretBox(settings.ENCRYPTION_KEY);
  const systemPrompts = createSystemPrompts(pool);
  const workspaceModelStore = createWorkspaceModels(pool, secrets, installModel(settings));
  const resolveModel: ResolveModel = (workspaceId, model) =>
    workspaceModelStore.resolve(workspaceId, model);
  const systemPrompt: SystemPrompt = (workspaceId, type) =>
    systemPrompts.defaultOf(workspaceId, type as 'persistent' | 'report');
  const targetPolicy = createTargetPolicy(settings.ALLOWED_TARGETS);
  const models = createModelClient({
    timeoutMs: settings.LLM_TIMEOUT_MS,
    maxRetries: settings.LLM_MAX_RETRIES,
    targetPolicy,
    structuredOutput: settings.LLM_STRUCTURED_OUTPUT,
  });
  const objects = s3Configured(settings)
    ? createObjectStore(settings, settings.S3_BUCKET)
    : undefined;
  const originals = objects && createOriginals(objects);
  if (!originals) logger.warn('S3 is not configured: uploads are not kept, so not re-processed');
  const ocr = settings.URL_OCR
    ? createOcrClient(settings.URL_OCR, settings.OCR_REQUEST_TIMEOUT_MS)
    : undefined;
  if (!ocr) logger.warn('URL_OCR is not set: documents cannot be added');
  const artifacts = createOcrArtifacts({
    search,
    indexes: {
      results: settings.INDEX_PDF_PARSING_RESULTS,
      summary: settings.INDEX_DOCUMENT_SUMMARIZE,
      chunkSummary: settings.INDEX_DOCUMENT_SUMMARIZE_CHUNK,
    },
    objects,
  });
  const deletions = createDeletions({
    pool,
    access,
    knowledge,
    artifacts,
    ocr,
    objects: originals,
    summaryWaitMs: settings.SUMMARY_WAIT_MS,
    logger,
    registry: metrics.registry,
  });
  const workspaces = createWorkspaces(pool, users, deletions);
  const { area: audioArea, audioWorker } = audiosArea({
    pool,
    access,
    workspaces,
    knowledge,
    deletions,
    objects,
    callerOf: callerOf(users),
    logger,
    registry: metrics.registry,
    settings,
  });
  const { area: documentArea, follower } = documentsArea({
    pool,
    access,
    workspaces,
    knowledge,
    ocr,
    artifacts,
    originals,
    deletions,
    callerOf: callerOf(users),
    logger,
    registry: metrics.registry,
    settings,
  });
  const { area: topicArea, topics } = topicsArea({
    pool,
    access,
    workspaces,
    callerOf: callerOf(users),
  });
  const databases = createDatabases({
    pool,
    access,
    workspaces,
    box: secrets,
    dbProxy: settings.URL_DB_PROXY
      ? createDbProxyClient(
          settings.URL_DB_PROXY,
          settings.DB_PROXY_TOKEN,
          settings.DATABASE_CONNECT_TIMEOUT,
        )
      : undefined,
  });
  const apis = createApis({
    pool,
    access,
    workspaces,
    box: secrets,
    httpProxy: settings.URL_HTTP_PROXY
      ? createHttpProxyClient(
          settings.URL_HTTP_PROXY,
          settings.HTTP_PROXY_TOKEN,
          settings.HTTP_PROXY_TIMEOUT_MS,
        )
      : undefined,
  });
  const retrieve = createRetriever({
    knowledge,
    access,
    topicDocuments: (member, topicIds) => topics.documentsOf(member, topicIds),
  });
  const answers = createAnswerPipeline({
    chats,
    retrieve,
    models,
    resolveModel,
    systemPrompt,
    lookups: createSourceLookups({ databases, apis, models, logger }),
    maximumChatPerRoom: settings.MAXIMUM_CHAT_PER_ROOM,
  });
  if (!settings.SERVICE_TOKEN) logger.warn('SERVICE_TOKEN is not set: /utils refuses every call');

  const caller = callerOf(users);
  const workspaceRoles = createWorkspaceRoles(pool);
  const resourceAccess = createResourceAccess(access, workspaces);
  const appKeys = createAppKeys({
    repository: createAppKeyRepository(pool),
    workspaces,
    access,
    lastUsedIntervalMs: settings.APP_KEY_LAST_USED_INTERVAL_MS,
  });
  const keySessions = createKeySessions({ chats, access });
  const iframes = createIframes(pool, workspaces);
  const rooms = createRooms({ workspaces, access, chats });
  const workspaceModels = (workspaceId: string) => workspaceModelStore.ids(workspaceId);
  // Each area: its routes (in the order they are matched) and what runs beside them.
  const areas: Area[] = [
    {
      routes: [
        ...workspaceRoutes(workspaces, caller),
        ...workspaceRoleRoutes(workspaceRoles),
        ...adminRoutes(workspaces, caller),
      ],
    },
    { routes: appKeyRoutes(appKeys, caller) },
    documentArea,
    audioArea,
    topicArea,
    { routes: searchRoutes({ search: createSearch({ workspaces, retrieve }), callerOf: caller }) },
    {
      routes: [
        ...workspaceConfigRoutes({
          workspaceConfig: createWorkspaceConfig({
            workspaces,
            systemPrompts,
            workspaceModels: workspaceModelStore,
            models,
          }),
          callerOf: caller,
        }),
        ...integrationRoutes({
          integrations: createIntegrations(
            pool,
            secrets,
            createMessagingBridge({ timeoutMs: settings.WHATSAPP_TIMEOUT, targetPolicy }),
            workspaces,
          ),
          iframes,
          callerOf: caller,
        }),
      ],
    },
    {
      routes: (['document', 'folder', 'topic', 'audio', 'database', 'api'] as const).flatMap(
        (type) => accessRoutes(type, `${type}s`, { resourceAccess, callerOf: caller }),
      ),
    },
    { routes: sourceRoutes({ databases, apis, callerOf: caller }) },
    { routes: dashboardRoutes({ dashboard: createDashboard(pool, workspaces), callerOf: caller }) },
    {
      routes: [
        ...roomRoutes({ rooms, callerOf: caller }),
        ...chatRoutes({ chats, rooms, answers, workspaces, callerOf: caller }),
        ...reportRoutes({
          reports: createReports({
            workspaces,
            topics,
            chats,
            knowledge,
            models,
            resolveModel,
            systemPrompt,
            maxCharacters: settings.MAX_CHAR_GENERATE_REPORT,
            temperature: 0.2,
          }),
          callerOf: caller,
        }),
      ],
    },
    {
      routes: [
        ...openApiHistoryRoutes({ appKeys, chats, keySessions }),
        ...openApiChatRoutes({ appKeys, workspaces, chats, answers, models: workspaceModels }),
      ],
    },
    { routes: utilRoutes(users, settings.SERVICE_TOKEN) },
    {
      routes: signInRoutes(
        createSignInRelay({
          userServiceUrl: settings.URL_USER,
          timeoutMs: settings.USER_SERVICE_TIMEOUT_MS,
        }),
      ),
    },
    {
      routes: [
        ...pageRoutes(iframes),
        ...embedRoutes({
          appKeys,
          iframes,
          answers,
          chats,
          keySessions,
          workspaces,
          visitorLimit: createVisitorLimit(redis, {
            limit: settings.EMBED_RATE_LIMIT,
            windowSeconds: settings.EMBED_RATE_WINDOW_SECONDS,
          }),
        }),
      ],
    },
  ];

  const app = createApp({
    logger,
    activityLog: createActivityLog({
      repository: activity,
      logger,
      registry: metrics.registry,
      // Calls with an app key or the service token are a program's, not a user's action.
      // The relayed logins are the user service's to record; widget visitors are not users.
      ignore: (route) => /^\/(open-api|v1\/api\/open-api|utils|auth|embed)\//.test(route.path),
    }),
    metrics,
    publicKey: () => publicKey.key(),
    sessions: redis,
    opaUrl: settings.URL_OPA,
    ...(options.decide ? { decide: options.decide } : {}),
    trustProxy: settings.TRUST_PROXY,
    readiness: {
      postgres: () => pool.query('select 1'),
      redis: () => redis.ping(),
      opensearch: () => knowledge.ping(),
    },
    areas,
  });

  return {
    app,
    knowledge,
    activity,
    follower,
    audioWorker,
    async start() {
      const applied = await migrateDatabase(pool, settings.DATABASE_SCHEMA);
      if (applied.length > 0) logger.info({ applied }, 'migrations applied');
      const indexProblem = await knowledge.ensureIndex();
      if (indexProblem) logger.error(indexProblem);
      await activity.ensureIndex();
      await originals?.ensureBucket();
      await publicKey.load();
      await documentArea.start?.();
      await audioArea.start?.();
      deletions.start();
    },
    async stop() {
      await Promise.all([documentArea.stop?.(), audioArea.stop?.(), deletions.stop()]);
      await pool.end();
      redis.disconnect();
      await search.close();
      await activity.close();
      objects?.close();
    },
  };
}
