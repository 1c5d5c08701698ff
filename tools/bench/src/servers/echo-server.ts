/**
 * The same small JSON endpoint two ways, as a separate process so the load generator does not
 * share its event loop: `kit` (createService: logs, metrics, tracing, validation) or `bare`
 * (plain express with a JSON parser), listening on PORT. Both answer `GET /ready`.
 */
import '@pelita/kit/instrument';
import express from 'express';
import { z } from 'zod';
import { createLogger, createService, defineRoute } from '@pelita/kit';

const Echo = z.object({ name: z.string().min(1), count: z.number().int() });

function kitApp() {
  const logger = createLogger({ name: 'bench-echo', level: process.env.LOG_LEVEL ?? 'info' });
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

const app = process.argv[2] === 'kit' ? kitApp() : bareApp();
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
