/**
 * The benchmarks' plain Node servers, each run as its own process (`node plain-server.js <role>`)
 * so none shares an event loop with the load generator or the service measured. Listens on
 * PORT (a free one when unset) and prints `{"port":N}` once it does.
 * - `upstream`: answers every request with the same small JSON document;
 * - `sink`: accepts any request (an OTLP export), drains it and answers `{}`;
 * - `echo`: `POST /echo` on bare node:http, the kit benchmark's floor;
 * - `forwarder`: the smallest useful Node forwarder — read the JSON description of `POST /proxy`,
 *   send it with `http.request` through a keep-alive agent, pass the answer back; nothing else.
 */
import http, { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const UPSTREAM_ANSWER = JSON.stringify({
  items: [
    { id: 1, name: 'first' },
    { id: 2, name: 'second' },
  ],
});

type Role = 'upstream' | 'sink' | 'echo' | 'forwarder';

function readBody(req: IncomingMessage, then: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => then(Buffer.concat(chunks)));
}

function json(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(body);
}

const agent = new http.Agent({ keepAlive: true });

const handlers: Record<Role, (req: IncomingMessage, res: ServerResponse) => void> = {
  upstream: (req, res) => {
    req.resume();
    json(res, 200, UPSTREAM_ANSWER);
  },
  sink: (req, res) => readBody(req, () => json(res, 200, '{}')),
  echo: (req, res) => {
    if (req.url === '/ready') return json(res, 200, '{"status":"ready"}');
    readBody(req, (raw) => {
      const body = JSON.parse(raw.toString('utf8')) as { name: string; count: number };
      json(res, 200, JSON.stringify({ name: body.name, count: body.count + 1 }));
    });
  },
  forwarder: (req, res) =>
    readBody(req, (raw) => {
      const { connection } = JSON.parse(raw.toString('utf8')) as {
        connection: { host: string; endpoint: { path: string; method: string } };
      };
      const url = new URL(connection.endpoint.path, connection.host);
      const outgoing = http.request(
        url,
        { method: connection.endpoint.method.toUpperCase(), agent },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => {
            res.writeHead(answer.statusCode ?? 502, {
              'content-type': answer.headers['content-type'] ?? 'application/octet-stream',
            });
            res.end(Buffer.concat(chunks));
          });
        },
      );
      outgoing.on('error', () => json(res, 502, '{}'));
      outgoing.end();
    }),
};

const role = process.argv[2] as Role;
const handler = handlers[role];
if (!handler) throw new Error(`plain-server: unknown role ${role}`);
const server = createServer(handler);
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.once('SIGTERM', () => process.exit(0));
