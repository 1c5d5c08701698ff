/**
 * The same small JSON endpoint two ways, as a separate process so the load generator does not
 * share its event loop: `kit` (createService: logs, metrics, tracing, validation) or `bare`
 * (plain express with a JSON parser), listening on PORT. Both answer `GET /ready`. The kit's app
 * is served the way every service is (`serve`), express's with `app.listen`.
 */
import '@pelita/kit/instrument';
import express from 'express';
import { z } from 'zod';
import { createLogger, createService, defineRoute, serve } from '@pelita/kit';

const Echo = z.object({ name: z.string().min(1), count: z.number().int() });

const logger = createLogger({ name: 'bench-echo', level: process.env.LOG_LEVEL ?? 'info' });

function kitApp() {
  return createService({
    name: 'bench-echo',
    logger,
    routes: [
      defineRoute({
        method: 'post',
        path: '/echo',
        summary: 'Echo',
        request: { body: Echo },
        responses: { 200: { description: 'Echoed' } },
        handler: ({ body }) => ({ name: body.name, count: body.count + 1 }),
      }),
    ],
  });
}

function bareApp() {
  const app = express();
  app.use(express.json());
  app.get('/ready', (_req, res) => {
    res.json({ status: 'ready' });
  });
  app.post('/echo', (req, res) => {
    const body = req.body as { name: string; count: number };
    res.json({ name: body.name, count: body.count + 1 });
  });
  return app;
}

if (process.argv[2] === 'kit') {
  void serve(kitApp(), {
    port: Number(process.env.PORT),
    host: '127.0.0.1',
    logger,
    shutdownTimeoutMs: 1000,
  });
} else {
  const server = bareApp().listen(Number(process.env.PORT), '127.0.0.1');
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}
