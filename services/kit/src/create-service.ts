/**
 * Builds a service's express app: request id and access log, metrics, JSON body parsing,
 * validated routes, `/health`, `/ready`, `/metrics`, `/api-docs`, one 404 and one error handler.
 * No listening and no environment reads here: `serve` does the former, `loadConfig` the latter.
 */
import type createExpressApp from 'express';
import type {
  ErrorRequestHandler,
  Express,
  NextFunction,
  Request,
  RequestHandler,
  Response,
} from 'express';
import type * as SwaggerUi from 'swagger-ui-express';
import type { z } from 'zod';
import { defaultErrorBody, ErrorBodySchema, HttpError, toHttpError } from './errors';
import { installFastPath, parseByteLimit, type FastRoute } from './fast-route';
import { healthRoutes, type ReadinessCheck } from './health';
import { isShuttingDown, isStarting, trackHandler } from './lifecycle';
import type { Logger } from './logger';
import { createMetrics, requestMetrics, type Metrics } from './metrics';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi';
import { keepRawBody } from './raw-body';
import { defineRequestLog, requestLogging } from './request-context';
import type { RouteDefinition } from './route';
import { parseRequest } from './validate';

declare module 'express-serve-static-core' {
  interface Request {
    /** Logger bound to this request (its lines carry `request_id`), set by the access log. */
    log: Logger;
  }
}

export interface ServiceOptions {
  name: string;
  version?: string;
  description?: string;
  logger: Logger;
  routes: RouteDefinition[];
  /** Dependency checks run by `/ready`, by name (`postgres`, `redis`, ...). */
  readiness?: Record<string, ReadinessCheck>;
  /** Body of `/health` when the spec fixes one; `{ status: 'OK', timestamp }` otherwise. */
  health?: () => unknown;
  metrics?: Metrics;
  /** Largest JSON body accepted (body-parser syntax, e.g. `1mb`). */
  bodyLimit?: string;
  /** Shape of error bodies, for endpoints whose spec fixes one; `{ error: { code, message } }` otherwise. */
  errorBody?: (err: HttpError) => unknown;
  /** Schema of what `errorBody` returns, for the documented 400/404/413 answers. */
  errorSchema?: z.ZodType;
  /**
   * Runs before every route not marked `public` (e.g. `requireAuth(...)`); the operational
   * endpoints (`/health`, `/ready`, `/metrics`, `/api-docs`) are never guarded.
   */
  guard?: RequestHandler;
  /**
   * Static files (a web page's scripts and styles) served from `dir` under `path`, before the
   * routes; never guarded, since a browser loads them before anyone has logged in.
   */
  assets?: { path: string; dir: string };
}

export function createService(options: ServiceOptions): Express {
  const { logger, routes, errorBody = defaultErrorBody } = options;
  const metrics = options.metrics ?? createMetrics();
  // express is loaded by the first app built, not by every importer of the kit (nor before
  // `./instrument` has started tracing, which must patch it as it loads).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const express = require('express') as typeof createExpressApp;
  const app = express();
  app.disable('x-powered-by');
  // Hashing every JSON answer for an ETag costs CPU for caching no API client here relies on.
  app.set('etag', false);
  app.set('trust proxy', false);
  defineRequestLog(app.request);

  const bodyLimit = options.bodyLimit ?? '1mb';
  // Every request passes these first, on express's path and on the fast path alike.
  const middleware: RequestHandler[] = [
    requestLogging(logger),
    requestMetrics(metrics),
    function closeConnectionsWhileDraining(_req, res, next) {
      if (isShuttingDown(app)) res.setHeader('Connection', 'close');
      next();
    },
  ];
  for (const handler of middleware) app.use(handler);
  // The raw bytes are kept for routes that check a signature over them (`raw-body.ts`).
  app.use(express.json({ limit: bodyLimit, verify: (req, _res, body) => keepRawBody(req, body) }));

  const operational = healthRoutes({
    checks: options.readiness ?? {},
    isStarting: () => isStarting(app),
    isShuttingDown: () => isShuttingDown(app),
    ...(options.health ? { health: options.health } : {}),
  });
  const documented = [...operational, ...routes];
  const isGuarded = (route: RouteDefinition) =>
    options.guard !== undefined && route.public !== true && !operational.includes(route);
  const document = buildOpenApiDocument(
    {
      title: options.name,
      version: options.version ?? '0.1.0',
      ...(options.description ? { description: options.description } : {}),
    },
    documented,
    { errorSchema: options.errorSchema ?? ErrorBodySchema, isGuarded },
  );

  app.get('/metrics', async function metricsEndpoint(_req, res) {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  mountDocs(app, document);
  if (options.assets) {
    app.use(
      options.assets.path,
      express.static(options.assets.dir, {
        index: false,
        redirect: false,
        maxAge: '5m',
        setHeaders: (res) => res.setHeader('x-content-type-options', 'nosniff'),
      }),
    );
  }
  const fastRoutes: Array<Omit<FastRoute, 'errorHandlers'> & { ownErrors?: ErrorRequestHandler }> =
    [];
  for (const route of documented) {
    const guard = options.guard && isGuarded(route) ? [options.guard] : [];
    const handlers: RequestHandler[] = [
      ...(route.beforeGuard ?? []),
      ...guard,
      ...(route.before ?? []),
      async function validatedRoute(req: Request, res: Response) {
        const input = parseRequest(route.request, req);
        const result: unknown = await trackHandler(app, () => route.handler(input, req, res));
        if (!res.headersSent && result !== undefined) {
          res.status(route.successStatus ?? 200).json(result);
        }
      },
    ];
    const ownErrors = route.errors ? routeErrorHandler(route.errors.body) : undefined;
    app[route.method](route.path, ...handlers, ...(ownErrors ? [ownErrors] : []));
    if (isLiteralPath(route.path) && !shadowedByAssets(route.path, options.assets?.path)) {
      fastRoutes.push({
        method: route.method.toUpperCase(),
        path: route.path,
        handlers,
        ...(ownErrors ? { ownErrors } : {}),
      });
    }
  }

  app.use(function notFound(req: Request) {
    throw new HttpError(404, 'not_found', `No route for ${req.method} ${req.path}`);
  });
  // Errors raised before a route runs (an unparsable JSON body) reach the service's handler; a
  // route with its own error shape still answers in it (matched by method and literal path).
  const ownShapes = documented.filter((route) => route.errors);
  const serviceErrors = routeErrorHandler((err, req) => {
    const route = ownShapes.find(
      (r) => r.method.toUpperCase() === req.method && r.path === req.path,
    );
    return (route?.errors?.body ?? errorBody)(err);
  });
  app.use(serviceErrors);
  installFastPath(app, {
    middleware,
    bodyLimitBytes: parseByteLimit(bodyLimit),
    routes: fastRoutes.map(({ ownErrors, ...route }) => ({
      ...route,
      errorHandlers: ownErrors ? [ownErrors, serviceErrors] : [serviceErrors],
    })),
  });
  return app;
}

/** A path express would match literally: no parameters, wildcards or patterns. */
function isLiteralPath(path: string): boolean {
  return /^\/[A-Za-z0-9._~/-]*$/.test(path) && !path.endsWith('/');
}

/** Static assets are served before the routes: a route under their path stays with express. */
function shadowedByAssets(path: string, assetsPath: string | undefined): boolean {
  return (
    assetsPath !== undefined &&
    (path === assetsPath || path.startsWith(`${assetsPath.replace(/\/$/, '')}/`))
  );
}

/** Answers an error in the given body shape (a route's own, or the service's). */
function routeErrorHandler(errorBody: (err: HttpError, req: Request) => unknown) {
  return function errorHandler(err: unknown, req: Request, res: Response, next: NextFunction) {
    const httpError = toHttpError(err);
    if (httpError.status >= 500) req.log.error({ err }, 'request failed');
    if (res.headersSent) return next(err);
    res.status(httpError.status).json(errorBody(httpError, req));
  };
}

function mountDocs(app: Express, document: OpenApiDocument): void {
  app.get('/api-docs.json', function openApiDocument(_req, res) {
    res.json(document);
  });
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- at first use, as express
  const swaggerUi = require('swagger-ui-express') as typeof SwaggerUi;
  app.use('/api-docs', swaggerUi.serve, swaggerUi.setup(document));
}
