/**
 * The MinerU cloud API double over HTTP: `/api/v4/...` (bearer token), the presigned upload URLs
 * (`PUT /oss/...`), the result archives (`GET /cdn/pdf/<id>.zip`), files it hosts for URL tasks
 * (`GET /files/<name>`), and the control API (`/_stub/...`).
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '@pelita/kit';
import { OptionsPatchSchema, type OptionsPatch } from './api-schemas';
import { ERROR_CODES } from './error-codes';
import { FaultScript, type FaultRule } from './faults';
import { sendCode } from './http-replies';
import { control } from './routes/control';
import { mineruApi } from './routes/mineru-api';
import { downloadArchive, hostedFile, upload } from './routes/storage';
import type { RuntimeSettings, StubContext } from './stub-context';
import { TaskProcessor } from './task-processor';
import { TaskRegistry, type StubStats } from './task-registry';
import { UploadSigner } from './upload-signer';

export interface MineruCloudStubOptions extends Partial<RuntimeSettings> {
  /** 0 (default): a free port. */
  port?: number;
  host?: string;
  /** The origin written into upload and result URLs (default `http://<host>:<port>`). */
  publicOrigin?: string;
  /** The bearer token required; unset: any non-empty token is accepted (a missing one never). */
  token?: string;
  faults?: FaultRule[];
}

export interface MineruCloudStub {
  /** Base URL of the API, as a client is configured with it: `http://127.0.0.1:<port>/api/v4`. */
  url: string;
  origin: string;
  port: number;
  stats(): StubStats;
  resetStats(): void;
  setFaults(rules: FaultRule[]): void;
  configure(patch: OptionsPatch): void;
  /** Serves `bytes` at `<origin>/files/<name>` (the only URLs `extract/task` accepts); returns it. */
  hostFile(name: string, bytes: Buffer): string;
  close(): Promise<void>;
}

export async function startMineruCloudStub(
  options: MineruCloudStubOptions = {},
): Promise<MineruCloudStub> {
  const runtime: RuntimeSettings = {
    queueMs: options.queueMs ?? 20,
    pageMs: options.pageMs ?? 50,
    convertingMs: options.convertingMs ?? 20,
    maxFilesPerBatch: options.maxFilesPerBatch ?? 200,
    maxPages: options.maxPages ?? 600,
    maxFileBytes: options.maxFileBytes ?? 200 * 1024 * 1024,
    zipMethod: options.zipMethod ?? 'deflate',
  };
  const ctx: StubContext = {
    runtime,
    token: options.token,
    script: new FaultScript(options.faults ?? []),
    registry: new TaskRegistry(),
    processor: new TaskProcessor(() => ({ ...runtime }), randomUUID),
    signer: new UploadSigner(),
    origin: '',
  };

  function hostFile(name: string, bytes: Buffer): string {
    ctx.registry.host(name, bytes);
    return `${ctx.origin}/files/${encodeURIComponent(name)}`;
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stub');
    const path = url.pathname;
    if (path.startsWith('/api/v4/')) return mineruApi(ctx, req, res, path);
    if (req.method === 'PUT' && path.startsWith('/oss/api-upload/')) {
      return upload(ctx, req, res, url);
    }
    if (req.method === 'GET' && path.startsWith('/cdn/pdf/')) {
      return downloadArchive(ctx, res, path);
    }
    if (req.method === 'GET' && path.startsWith('/files/')) return hostedFile(ctx, res, path);
    if (path.startsWith('/_stub/')) return control(ctx, req, res, path, hostFile);
    sendCode(res, ERROR_CODES.parameterError, `no route ${req.method} ${path}`, 404);
  }

  const server: Server = createServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendCode(res, ERROR_CODES.serviceError, errorMessage(err), 500);
      else res.destroy();
    });
  });
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const host = options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1';
  ctx.origin = (options.publicOrigin ?? `http://${host}:${port}`).replace(/\/+$/, '');

  return {
    url: `${ctx.origin}/api/v4`,
    origin: ctx.origin,
    port,
    stats: () => ctx.registry.stats(),
    resetStats: () => ctx.registry.resetStats(),
    setFaults: (rules) => ctx.script.set(rules),
    configure: (patch) => Object.assign(runtime, OptionsPatchSchema.parse(patch)),
    hostFile,
    close: async () => {
      await ctx.processor.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
