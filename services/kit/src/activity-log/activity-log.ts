/**
 * Records each user action (every request that changes something, plus what a service marks,
 * such as login) in the activity log shared by the user service and the core backend, after the
 * answer is sent — and every request the guard refuses (401, 403), reads included: attempts
 * at what one may not do are what an administrator looks for first. A failed write is logged and
 * counted, never turned into an error for the user.
 */
import type { Request, RequestHandler } from 'express';
import { Counter, type Registry } from 'prom-client';
import { errorMessage } from '../error-message';
import type { Logger } from '../logger';
import type { RouteDefinition } from '../route';
import type { ActivityRepository } from './activity-repository';

/** Set by a public route that learns who acted (login) so the entry names them. */
export interface ActivityUser {
  id: string;
  username: string;
}

declare module 'express-serve-static-core' {
  interface Locals {
    activityUser?: ActivityUser;
  }
}

export interface ActivityLog {
  /** Middleware for one route: records its request when it is an action. */
  recorderFor(route: RouteDefinition): RequestHandler | undefined;
}

const READS = new Set(['get', 'head']);

export interface ActivityLogOptions {
  /** Unset: nothing is recorded (no OpenSearch configured). */
  repository: ActivityRepository | undefined;
  logger: Logger;
  registry: Registry;
  /** Routes that are not a user's action (calls by programs with app or service keys). */
  ignore?: (route: RouteDefinition) => boolean;
}

export function createActivityLog({
  repository,
  logger,
  registry,
  ignore = () => false,
}: ActivityLogOptions): ActivityLog {
  const writes = new Counter({
    name: 'activity_log_writes_total',
    help: 'Entries written to the user activity log, by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  return {
    recorderFor(route) {
      if (!repository || ignore(route)) return undefined;
      const read = READS.has(route.method);
      const action = `${route.method.toUpperCase()} ${route.path}`;
      return function recordActivity(req: Request, res, next) {
        res.once('finish', () => {
          if (read && res.statusCode !== 401 && res.statusCode !== 403) return;
          const user: ActivityUser | undefined =
            res.locals.activityUser ??
            (req.auth ? { id: req.auth.sub, username: req.auth.username } : undefined);
          repository
            .record({
              userId: user?.id ?? null,
              username: user?.username ?? null,
              action,
              method: req.method,
              path: req.originalUrl.split('?')[0] ?? '/',
              statusCode: res.statusCode,
              ip: req.ip ?? '',
              userAgent: req.get('user-agent') ?? '',
              timestamp: new Date().toISOString(),
              ...(res.locals.activityChanges ? { changes: res.locals.activityChanges } : {}),
            })
            .then(
              () => writes.inc({ outcome: 'success' }),
              (err: unknown) => {
                writes.inc({ outcome: 'failure' });
                logger.warn({ action, err: errorMessage(err) }, 'while writing the activity log');
              },
            );
        });
        next();
      };
    },
  };
}

/** Puts the activity recorder in front of every route that is a user action. */
export function withActivityLog(log: ActivityLog, routes: RouteDefinition[]): RouteDefinition[] {
  return routes.map((route) => {
    const recorder = log.recorderFor(route);
    // Before the guard: requests it refuses are recorded too.
    return recorder ? { ...route, beforeGuard: [recorder, ...(route.beforeGuard ?? [])] } : route;
  });
}
