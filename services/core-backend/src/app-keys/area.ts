/** The app keys area: the keys of the open API and the widgets, and their routes. */
import type pg from 'pg';
import type { AccessLists } from '../access/access-lists';
import type { Area } from '../area';
import type { Settings } from '../config';
import type { CallerOf } from '../workspaces/caller';
import type { Workspaces } from '../workspaces/workspaces';
import { createAppKeyRepository } from './app-key-repository';
import { createAppKeys, type AppKeys } from './app-keys';
import { appKeyRoutes } from './routes';

export function appKeysArea(deps: {
  pool: pg.Pool;
  workspaces: Workspaces;
  access: AccessLists;
  settings: Pick<Settings, 'APP_KEY_LAST_USED_INTERVAL_MS'>;
  callerOf: CallerOf;
}): { area: Area; appKeys: AppKeys } {
  const appKeys = createAppKeys({
    repository: createAppKeyRepository(deps.pool),
    workspaces: deps.workspaces,
    access: deps.access,
    lastUsedIntervalMs: deps.settings.APP_KEY_LAST_USED_INTERVAL_MS,
  });
  return { area: { routes: appKeyRoutes(appKeys, deps.callerOf) }, appKeys };
}
