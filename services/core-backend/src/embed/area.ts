/**
 * The embed area: the widget's page and its public chat. Visitors ask as the widget's app key
 * (`widget-chat.ts`), in the key's sessions (the chats area's `KeySessions`), at most
 * EMBED_RATE_LIMIT questions per window from one address (counted in Redis).
 */
import type { Redis } from 'ioredis';
import type { AppKeys } from '../app-keys/app-keys';
import type { Area } from '../area';
import type { KeySessions } from '../chats/key-sessions';
import type { Settings } from '../config';
import type { Iframes } from '../workspace-config/iframes';
import { createVisitorLimit } from '../workspace-config/widget-visitor-limit';
import { pageRoutes } from './page-routes';
import { embedRoutes } from './routes';
import { createWidgetChat } from './widget-chat';

export function embedArea(deps: {
  appKeys: AppKeys;
  iframes: Iframes;
  keySessions: KeySessions;
  redis: Redis;
  settings: Pick<Settings, 'EMBED_RATE_LIMIT' | 'EMBED_RATE_WINDOW_SECONDS'>;
}): Area {
  const widgetChat = createWidgetChat({
    iframes: deps.iframes,
    appKeys: deps.appKeys,
    keySessions: deps.keySessions,
    visitorLimit: createVisitorLimit(deps.redis, {
      limit: deps.settings.EMBED_RATE_LIMIT,
      windowSeconds: deps.settings.EMBED_RATE_WINDOW_SECONDS,
    }),
  });
  return { routes: [...pageRoutes(deps.iframes), ...embedRoutes({ widgetChat })] };
}
