/**
 * The sources area: databases (text-to-SQL) and APIs with their endpoints (text-to-API), their
 * routes, and the db-proxy and http-proxy clients they reach them through. Chats use `databases`
 * and `apis` (with the membership they hold).
 */
import type pg from 'pg';
import type { AccessLists } from '../access/access-lists';
import type { Area } from '../area';
import type { Settings } from '../config';
import type { SecretBox } from '../crypto/secret-box';
import type { MemberCheck } from '../workspaces/actor';
import type { CallerOf } from '../workspaces/caller';
import { createApiRepository } from './api-repository';
import { createApis } from './apis';
import { createDatabaseRepository } from './database-repository';
import { createDatabases } from './databases';
import { createDbProxyClient, createHttpProxyClient } from './proxy-clients';
import { sourceRoutes } from './routes';

export function sourcesArea(deps: {
  pool: pg.Pool;
  access: AccessLists;
  workspaces: MemberCheck;
  box: SecretBox;
  callerOf: CallerOf;
  settings: Pick<
    Settings,
    | 'URL_DB_PROXY'
    | 'DB_PROXY_TOKEN'
    | 'DATABASE_CONNECT_TIMEOUT'
    | 'URL_HTTP_PROXY'
    | 'HTTP_PROXY_TOKEN'
    | 'HTTP_PROXY_TIMEOUT_MS'
  >;
}) {
  const { pool, access, workspaces, box, settings } = deps;
  const databases = createDatabases({
    repository: createDatabaseRepository(pool, access),
    access,
    workspaces,
    box,
    dbProxy: settings.URL_DB_PROXY
      ? createDbProxyClient(
          settings.URL_DB_PROXY,
          settings.DB_PROXY_TOKEN,
          settings.DATABASE_CONNECT_TIMEOUT,
        )
      : undefined,
  });
  const apis = createApis({
    repository: createApiRepository(pool, access),
    access,
    workspaces,
    box,
    httpProxy: settings.URL_HTTP_PROXY
      ? createHttpProxyClient(
          settings.URL_HTTP_PROXY,
          settings.HTTP_PROXY_TOKEN,
          settings.HTTP_PROXY_TIMEOUT_MS,
        )
      : undefined,
  });
  const area: Area = { routes: sourceRoutes({ databases, apis, callerOf: deps.callerOf }) };
  return { area, databases, apis };
}
