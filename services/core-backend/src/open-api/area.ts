/**
 * The open API area: the seed's chat history API and the OpenAI-compatible chat, for app keys.
 * A key asks and reads in its sessions (the chats area's `KeySessions`) as `open-api.ts` decides.
 */
import type { AppKeys } from '../app-keys/app-keys';
import type { Area } from '../area';
import type { KeySessions } from '../chats/key-sessions';
import { openApiChatRoutes } from './chat-routes';
import { openApiHistoryRoutes } from './history-routes';
import { createOpenApi, type WorkspaceModels } from './open-api';

export function openApiArea(deps: {
  appKeys: AppKeys;
  keySessions: KeySessions;
  models: WorkspaceModels;
}): Area {
  const openApi = createOpenApi(deps);
  const routeDeps = { appKeys: deps.appKeys, openApi };
  return { routes: [...openApiHistoryRoutes(routeDeps), ...openApiChatRoutes(routeDeps)] };
}
