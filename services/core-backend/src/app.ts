/** createApp(deps): the kit's service with every route, guarded by token + session + OPA. No I/O at build. */
import {
  createService,
  withActivityLog,
  type ActivityLog,
  opaDecision,
  requireAuth,
  type DecideAccess,
  type Logger,
  type Metrics,
  type ReadinessCheck,
  type SessionLookup,
} from '@pelita/kit';
import type { KeyObject } from 'node:crypto';
import type { Express } from 'express';
import type { AccessLists } from './access/access-lists';
import type { ResourceAccess } from './access/resource-access';
import type { AppKeys } from './app-keys/app-keys';
import type pg from 'pg';
import type { Audios } from './audios/audios';
import type { DocumentResults } from './documents/document-results';
import type { Documents } from './documents/documents';
import type { Folders } from './documents/folders';
import type { OcrOptions } from './documents/ocr-client';
import type { KnowledgeIndex } from './retrieval/knowledge-index';
import type { Topics } from './topics/topics';
import { accessRoutes } from './access/access-routes';
import { audioRoutes } from './audios/routes';
import { integrationRoutes } from './workspace-config/integration-routes';
import type { Iframes } from './workspace-config/iframes';
import type { Integrations } from './workspace-config/integrations';
import { documentRoutes } from './documents/routes';
import { folderRoutes } from './documents/folder-routes';
import { searchRoutes } from './retrieval/routes';
import { topicRoutes } from './topics/routes';
import { workspaceConfigRoutes } from './workspace-config/routes';
import { reportRoutes } from './chats/report-routes';
import { sourceRoutes } from './sources/routes';
import { dashboardRoutes } from './dashboard/routes';
import type { Dashboard } from './dashboard/dashboard';
import type { Apis } from './sources/apis';
import type { Databases } from './sources/databases';
import type { Reports } from './chats/reports';
import type { ModelClient } from './chats/model-client';
import type { WorkspaceConfig } from './workspace-config/workspace-config';
import type { SystemPrompts } from './workspace-config/system-prompts';
import type { WorkspaceModels as WorkspaceModelStore } from './workspace-config/workspace-models';
import { callerOf } from './workspaces/caller';
import type { AnswerPipeline } from './chats/answer-pipeline';
import type { ChatStore } from './chats/chat-store';
import type { KeySessions } from './chats/key-sessions';
import type { Rooms } from './chats/rooms';
import type { Retrieve } from './retrieval/retriever';
import type { Search } from './retrieval/search';
import { adminRoutes } from './workspaces/admin-routes';
import { embedRoutes } from './embed/routes';
import { pageRoutes, WEB_DIR } from './embed/page-routes';
import { signInRoutes } from './auth/sign-in-routes';
import type { SignInRelay } from './auth/sign-in-relay';
import type { VisitorLimit } from './workspace-config/widget-visitor-limit';
import { appKeyRoutes } from './app-keys/routes';
import { chatRoutes } from './chats/chat-routes';
import { openApiChatRoutes, type WorkspaceModels } from './open-api/chat-routes';
import { openApiHistoryRoutes } from './open-api/history-routes';
import { roomRoutes } from './chats/room-routes';
import { utilRoutes } from './users/utils-routes';
import { workspaceRoleRoutes } from './workspaces/role-routes';
import { workspaceRoutes } from './workspaces/routes';
import type { UserDirectory } from './users/user-directory';
import type { WorkspaceRoles } from './workspaces/workspace-roles';
import type { Workspaces } from './workspaces/workspaces';

export interface AppDeps {
  logger: Logger;
  /** One entry per user action in INDEX_USER_ACTIVITY_LOG (the user service's shape). */
  activityLog: ActivityLog;
  metrics: Metrics;
  /** The user service's public key: access tokens are verified with it. */
  publicKey: () => KeyObject;
  /** Where live sessions are (the user service's Redis). */
  sessions: SessionLookup;
  opaUrl: string;
  /** Replaces the OPA call (route tests); `opaDecision({ url: opaUrl })` otherwise. */
  decide?: DecideAccess;
  serviceToken: string | undefined;
  users: UserDirectory;
  workspaces: Workspaces;
  access: AccessLists;
  /** Who may use one resource, as members read and replace it. */
  resourceAccess: ResourceAccess;
  workspaceRoles: WorkspaceRoles;
  appKeys: AppKeys;
  /** The sessions app keys opened, as a key may read them. */
  keySessions: KeySessions;
  /** The one retrieval: search and every chat. */
  retrieve: Retrieve;
  /** Search as a member asks it (POST /api/workspaces/:id/search). */
  search: Search;
  chats: ChatStore;
  /** A member's rooms and messages, as the member reaches them. */
  rooms: Rooms;
  answers: AnswerPipeline;
  /** The model ids a workspace offers on the open API. */
  workspaceModels: WorkspaceModels;
  pool: pg.Pool;
  knowledge: KnowledgeIndex;
  documents: Documents;
  /** A document's OCR result and summary. */
  results: DocumentResults;
  folders: Folders;
  topics: Topics;
  audios: Audios;
  documentRoutes: {
    tempDir: string;
    maxUploadBytes: number;
    defaultProcessing: OcrOptions['processing'];
  };
  systemPrompts: SystemPrompts;
  /** System prompts and models as members read and change them. */
  workspaceConfig: WorkspaceConfig;
  integrations: Integrations;
  iframes: Iframes;
  /** Questions a visitor address may still ask an embedded widget. */
  visitorLimit: VisitorLimit;
  /** The chat page's login, refresh and logout, relayed to the user service. */
  signIn: SignInRelay;
  /** Proxy hops whose X-Forwarded-For is believed (TRUST_PROXY). */
  trustProxy: number;
  reports: Reports;
  dashboard: Dashboard;
  databases: Databases;
  apis: Apis;
  workspaceModelStore: WorkspaceModelStore;
  models: ModelClient;
  readiness: Record<string, ReadinessCheck>;
}

export function createApp(deps: AppDeps): Express {
  const caller = callerOf(deps.users);
  const app = createService({
    name: 'core-backend',
    description: 'Workspaces and their knowledge: documents, topics, audios, databases, APIs',
    logger: deps.logger,
    metrics: deps.metrics,
    readiness: deps.readiness,
    assets: { path: '/assets', dir: WEB_DIR },
    guard: requireAuth({
      publicKey: deps.publicKey,
      sessions: deps.sessions,
      decide: deps.decide ?? opaDecision({ url: deps.opaUrl }),
      registry: deps.metrics.registry,
    }),
    routes: withActivityLog(deps.activityLog, [
      ...workspaceRoutes(deps.workspaces, caller),
      ...workspaceRoleRoutes(deps.workspaceRoles),
      ...appKeyRoutes(deps.appKeys, caller),
      ...adminRoutes(deps.workspaces, caller),
      ...documentRoutes({ ...deps, ...deps.documentRoutes, callerOf: caller }),
      ...audioRoutes({ ...deps, ...deps.documentRoutes, callerOf: caller }),
      ...folderRoutes({ ...deps, callerOf: caller }),
      ...topicRoutes({ ...deps, callerOf: caller }),
      ...searchRoutes({ ...deps, callerOf: caller }),
      ...workspaceConfigRoutes({ ...deps, callerOf: caller }),
      ...integrationRoutes({ ...deps, callerOf: caller }),
      ...accessRoutes('document', 'documents', { ...deps, callerOf: caller }),
      ...accessRoutes('folder', 'folders', { ...deps, callerOf: caller }),
      ...accessRoutes('topic', 'topics', { ...deps, callerOf: caller }),
      ...accessRoutes('audio', 'audios', { ...deps, callerOf: caller }),
      ...sourceRoutes({ ...deps, callerOf: caller }),
      ...dashboardRoutes({ ...deps, callerOf: caller }),
      ...accessRoutes('database', 'databases', { ...deps, callerOf: caller }),
      ...accessRoutes('api', 'apis', { ...deps, callerOf: caller }),
      ...roomRoutes({ ...deps, callerOf: caller }),
      ...chatRoutes({ ...deps, callerOf: caller }),
      ...reportRoutes({ ...deps, callerOf: caller }),
      ...openApiHistoryRoutes(deps),
      ...openApiChatRoutes({ ...deps, models: deps.workspaceModels }),
      ...utilRoutes(deps.users, deps.serviceToken),
      ...signInRoutes(deps.signIn),
      ...pageRoutes(deps.iframes),
      ...embedRoutes(deps),
    ]),
  });
  app.set('trust proxy', deps.trustProxy);
  return app;
}
