/**
 * The users area: the user directory every area learns names from (`callerOf` records the user
 * of each request), and the /utils routes through which the user service copies its users.
 */
import type { Logger } from '@pelita/kit';
import type pg from 'pg';
import type { Area } from '../area';
import { createUserDirectory } from './user-directory';
import { createUserRepository } from './user-repository';
import { utilRoutes } from './utils-routes';

export function usersArea(deps: {
  pool: pg.Pool;
  /** SERVICE_TOKEN: unset, /utils refuses every call. */
  serviceToken: string | undefined;
  logger: Logger;
}) {
  const users = createUserDirectory(createUserRepository(deps.pool));
  if (!deps.serviceToken) deps.logger.warn('SERVICE_TOKEN is not set: /utils refuses every call');
  const area: Area = { routes: utilRoutes(users, deps.serviceToken) };
  return { area, users };
}
