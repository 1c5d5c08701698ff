/**
 * Puts the core backend together from its settings: the platform (`platform.ts`: pool, Redis,
 * OpenSearch, activity log, metrics), the areas built on it, the app listing them. `start`
 * applies migrations; `main.ts` and the integration tests both build the service here.
 */
import {
  createTargetPolicy,
  moveInBackground,
  searchLayout,
  type ActivityRepository,
  type DecideAccess,
  type Logger,
  type Service,
} from '@pelita/kit';
import { createObjectStore } from '@pelita/kit/object-store';
import { accessArea, accessListsOf } from './access/area';
import { authArea } from './auth/area';
import { createApp } from './app';
import type { Area } from './area';
import type { ResolveModel, SystemPrompt } from './chats/answer-pipeline';
import { appKeysArea } from './app-keys/area';
import { chatsArea } from './chats/area';
import { embedArea } from './embed/area';
import { messagingArea } from './messaging/area';
import { openApiArea } from './open-api/area';
import { retrievalArea } from './retrieval/area';
import { createModelClient } from './chats/model-client';
import { audiosArea } from './audios/area';
import type { AudioWorker } from './audios/audio-worker';
import { embeddingsSettings, installModel, s3Configured, type Settings } from './config';
import { documentsArea } from './documents/area';
import type { DocumentFollower } from './documents/document-follower';
import { createOcrArtifacts } from './documents/ocr-artifacts';
import { createOcrClient } from './documents/ocr-client';
import { createOriginals } from './documents/originals';
import { topicsArea } from './topics/area';
import { dashboardArea } from './dashboard/area';
import { deletionArea } from './deletion/area';
import { sourcesArea } from './sources/area';
import { workspaceConfigArea } from './workspace-config/area';
import { createSecretBox } from './crypto/secret-box';
import { createPlatform } from './platform';
import { createEmbedder } from './retrieval/embeddings';
import { createKnowledgeIndex, type KnowledgeIndex } from './retrieval/knowledge-index';
import { usersArea } from './users/area';
import { workspacesArea } from './workspaces/area';

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
  const platform = createPlatform(settings, logger);
  const { metrics, pool, redis, search, activity } = platform;
  const embeddings = embeddingsSettings(settings);
  if (!embeddings) logger.warn('EMBEDDINGS_MODEL is not set: retrieval is BM25 only');
  const knowledge = createKnowledgeIndex({
    search,
    index: settings.KNOWLEDGE_INDEX,
    layout: searchLayout(settings),
    embedder: embeddings && createEmbedder(embeddings),
  });
  const { area: signInArea, publicKey } = authArea(settings, logger);
  const { area: utilsArea, users } = usersArea({
    pool,
    serviceToken: settings.SERVICE_TOKEN,
    logger,
  });
  const access = accessListsOf(pool);
  const secrets = createSecretBox(settings.ENCRYPTION_KEY);
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
    layout: searchLayout(settings),
    objects,
  });
  const { deletions } = deletionArea({
    pool,
    access,
    knowledge,
    artifacts,
    ocr,
    objects: originals,
    summaryWaitMs: settings.SUMMARY_WAIT_MS,
    idlePollMaxMs: settings.IDLE_POLL_MAX_MS,
    logger,
    registry: metrics.registry,
  });
  const {
    area: workspaceArea,
    workspaces,
    callerOf: caller,
  } = workspacesArea({ pool, users, deletions });
  const { area: audioArea, audioWorker } = audiosArea({
    pool,
    access,
    workspaces,
    knowledge,
    deletions,
    objects,
    callerOf: caller,
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
    callerOf: caller,
    logger,
    registry: metrics.registry,
    settings,
  });
  const { area: topicArea, topics } = topicsArea({ pool, access, workspaces, callerOf: caller });
  const sources = sourcesArea({
    pool,
    access,
    workspaces,
    box: secrets,
    callerOf: caller,
    settings,
  });
  const { databases, apis } = sources;
  const workspaceConfig = workspaceConfigArea({
    pool,
    box: secrets,
    workspaces,
    models,
    targetPolicy,
    installModel: installModel(settings),
    settings,
    callerOf: caller,
  });
  const { systemPrompts, workspaceModels: workspaceModelStore, iframes } = workspaceConfig;
  const resolveModel: ResolveModel = (workspaceId, model) =>
    workspaceModelStore.resolve(workspaceId, model);
  const systemPrompt: SystemPrompt = (workspaceId, type) =>
    systemPrompts.defaultOf(workspaceId, type as 'persistent' | 'report');
  const appKeysPart = appKeysArea({ pool, workspaces, access, settings, callerOf: caller });
  const { appKeys } = appKeysPart;
  const retrieval = retrievalArea({
    knowledge,
    access,
    workspaces,
    topicDocuments: (member, topicIds) => topics.documentsOf(member, topicIds),
    callerOf: caller,
  });
  const chatsPart = chatsArea({
    pool,
    workspaces,
    access,
    topics,
    knowledge,
    retrieve: retrieval.retrieve,
    databases,
    apis,
    models,
    resolveModel,
    systemPrompt,
    settings,
    logger,
    callerOf: caller,
  });
  const { keySessions } = chatsPart;
  const workspaceModels = (workspaceId: string) => workspaceModelStore.ids(workspaceId);
  // Each area: its routes (in the order they are matched) and what runs beside them.
  const areas: Area[] = [
    workspaceArea,
    appKeysPart.area,
    documentArea,
    audioArea,
    topicArea,
    retrieval.area,
    workspaceConfig.area,
    accessArea({ access, workspaces, callerOf: caller }),
    sources.area,
    dashboardArea({ pool, workspaces, callerOf: caller }),
    chatsPart.area,
    openApiArea({ appKeys, keySessions, models: workspaceModels }),
    utilsArea,
    signInArea,
    embedArea({ appKeys, iframes, keySessions, redis, settings }),
    messagingArea({
      pool,
      redis,
      integrations: workspaceConfig.integrations,
      bridge: workspaceConfig.bridge,
      appKeys,
      keySessions,
      logger,
      registry: metrics.registry,
      settings,
    }),
  ];

  const app = createApp({
    logger,
    activityLog: platform.activityLog,
    metrics,
    publicKey: () => publicKey.key(),
    sessions: redis,
    opaUrl: settings.URL_OPA,
    ...(options.decide ? { decide: options.decide } : {}),
    trustProxy: settings.TRUST_PROXY,
    readiness: { ...platform.readiness, opensearch: () => knowledge.ping() },
    areas,
  });

  return {
    app,
    knowledge,
    activity,
    follower,
    audioWorker,
    async start() {
      await platform.start();
      const indexProblem = await knowledge.ensureIndex();
      if (indexProblem) logger.error(indexProblem);
      void moveInBackground(logger, settings.LEGACY_KNOWLEDGE_INDEX, knowledge.moveLegacy);
      await originals?.ensureBucket();
      await publicKey.load();
      // In the order the areas are listed: each starts its workers once its storage is there.
      for (const area of areas) await area.start?.();
      deletions.start();
    },
    async stop() {
      await Promise.all([...areas.map((area) => area.stop?.()), deletions.stop()]);
      objects?.close();
      await platform.stop();
    },
  };
}
