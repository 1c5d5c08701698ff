/**
 * What every double shares: an express app on a free loopback port that records each request it
 * receives (method, path, query, headers, body) and can be told to fail the next requests.
 */
import type { AddressInfo } from 'node:net';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface DoubleServer {
  url: string;
  /** Every request received, oldest first. */
  requests: RecordedRequest[];
  /** The next `times` requests (matching `path`, a substring, when given) answer `status`. */
  failNext(status: number, times?: number, path?: string): void;
  close(): Promise<void>;
}

interface Failure {
  status: number;
  remaining: number;
  path: string | undefined;
}

export async function startDoubleServer(
  mount: (app: Express) => void,
): Promise<{ server: DoubleServer; app: Express }> {
  const app = express();
  const requests: RecordedRequest[] = [];
  const failures: Failure[] = [];
  app.use(express.json());
  app.use(express.urlencoded({ extended: false }));
  app.use(function record(req: Request, res: Response, next: NextFunction) {
    requests.push({
      method: req.method,
      path: req.path,
      query: { ...req.query },
      headers: { ...req.headers },
      body: req.body as unknown,
    });
    const failure = failures.find((f) => f.remaining > 0 && (!f.path || req.path.includes(f.path)));
    if (!failure) return next();
    failure.remaining -= 1;
    res.status(failure.status).json({ message: 'failure requested by the test' });
  });
  mount(app);
  const listener = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    listener.once('listening', resolve);
    listener.once('error', reject);
  });
  const { port } = listener.address() as AddressInfo;
  return {
    app,
    server: {
      url: `http://127.0.0.1:${port}`,
      requests,
      failNext(status, times = 1, path) {
        failures.push({ status, remaining: times, path });
      },
      close: () =>
        new Promise<void>((resolve) => {
          listener.closeAllConnections();
          listener.close(() => resolve());
        }),
    },
  };
}
