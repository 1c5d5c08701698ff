/**
 * A real HTTP server standing in for the external API: records every request that arrives and
 * answers with a per-path handler, or by echoing the request as JSON.
 */
import { once } from 'node:events';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type UpstreamHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  recorded: RecordedRequest,
) => void;

export interface RecordingUpstream {
  /** `http://127.0.0.1:port` (or the bound host). */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Answers requests whose path (without query) is `path`. */
  on(path: string, handler: UpstreamHandler): void;
  close(): Promise<void>;
}

export async function startUpstream(host = '127.0.0.1'): Promise<RecordingUpstream> {
  const requests: RecordedRequest[] = [];
  const handlers = new Map<string, UpstreamHandler>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      requests.push(recorded);
      const handler = handlers.get(new URL(recorded.url, 'http://x').pathname) ?? echo;
      handler(req, res, recorded);
    });
  });
  server.listen(0, host);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const shownHost = host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    requests,
    on: (path, handler) => handlers.set(path, handler),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function echo(_req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest): void {
  res.setHeader('content-type', 'application/json');
  res.end(
    JSON.stringify({
      method: recorded.method,
      url: recorded.url,
      headers: recorded.headers,
      body: recorded.body.toString('utf8'),
    }),
  );
}
