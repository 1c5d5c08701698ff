/**
 * The chats area: rooms and their messages (`chat-repository.ts`), the answer pipeline, reports,
 * and the sessions app keys open (which the open API and the widget ask and read through).
 * It is given the retrieval, the model client and the workspace's model and prompt choices.
 */
import type { Logger } from '@pelita/kit';
import type pg from 'pg';
import type { AccessLists } from '../access/access-lists';
import type { Area } from '../area';
import type { Settings } from '../config';
import type { KnowledgeIndex } from '../retrieval/knowledge-index';
import type { Retrieve } from '../retrieval/retriever';
import type { Apis } from '../sources/apis';
import type { Databases } from '../sources/databases';
import type { Topics } from '../topics/topics';
import type { CallerOf } from '../workspaces/caller';
import type { Workspaces } from '../workspaces/workspaces';
import { createAnswerPipeline, type ResolveModel, type SystemPrompt } from './answer-pipeline';
import { createChatRepository } from './chat-repository';
import { chatRoutes } from './chat-routes';
import { createKeySessions, type KeySessions } from './key-sessions';
import type { ModelClient } from './model-client';
import { reportRoutes } from './report-routes';
import { createReports } from './reports';
import { roomRoutes } from './room-routes';
import { createRooms } from './rooms';
import { createSourceLookups } from './source-lookups';

export function chatsArea(deps: {
  pool: pg.Pool;
  workspaces: Workspaces;
  access: AccessLists;
  topics: Topics;
  knowledge: KnowledgeIndex;
  retrieve: Retrieve;
  databases: Databases;
  apis: Apis;
  models: ModelClient;
  resolveModel: ResolveModel;
  systemPrompt: SystemPrompt;
  settings: Pick<
    Settings,
    'MAXIMUM_CHAT_PER_ROOM' | 'MAX_CHAR_GENERATE_REPORT' | 'CHAT_PASSAGES_IN'
  >;
  logger: Logger;
  callerOf: CallerOf;
}): { area: Area; keySessions: KeySessions } {
  const { workspaces, access, models, resolveModel, systemPrompt, callerOf } = deps;
  const chats = createChatRepository(deps.pool);
  const answers = createAnswerPipeline({
    chats,
    workspaceSettings: async (workspaceId) => (await workspaces.get(workspaceId)).settings,
    retrieve: deps.retrieve,
    models,
    resolveModel,
    systemPrompt,
    lookups: createSourceLookups({
      databases: deps.databases,
      apis: deps.apis,
      models,
      logger: deps.logger,
    }),
    maximumChatPerRoom: deps.settings.MAXIMUM_CHAT_PER_ROOM,
    passagesIn: deps.settings.CHAT_PASSAGES_IN,
  });
  const rooms = createRooms({ workspaces, access, chats, answers });
  const reports = createReports({
    workspaces,
    topics: deps.topics,
    chats,
    knowledge: deps.knowledge,
    models,
    resolveModel,
    systemPrompt,
    maxCharacters: deps.settings.MAX_CHAR_GENERATE_REPORT,
    temperature: 0.2,
  });
  return {
    area: {
      routes: [
        ...roomRoutes({ rooms, callerOf }),
        ...chatRoutes({ rooms, callerOf }),
        ...reportRoutes({ reports, callerOf }),
      ],
    },
    keySessions: createKeySessions({ chats, access, answers }),
  };
}
