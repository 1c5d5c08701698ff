/**
 * The MinerU cloud API double over HTTP: `/api/v4/...` (bearer token), the presigned upload URLs
 * (`PUT /oss/...`), the result archives (`GET /cdn/pdf/<id>.zip`), files it hosts for URL tasks
 * (`GET /files/<name>`), and the control API (`/_stub/...`).
 */
import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname } from 'node:path';
import { z } from 'zod';
import { errorMessage } from '@pelita/kit';
import {
  OptionsPatchSchema,
  UploadBatchSchema,
  UrlBatchSchema,
  UrlTaskSchema,
  type OptionsPatch,
} from './api-schemas';
import { ERROR_CODES, messageOf } from './error-codes';
import {
  FaultRuleSchema,
  FaultScript,
  ruleFromJson,
  type FaultKind,
  type FaultRule,
} from './faults';
import {
  describeTask,
  newTask,
  type FileTask,
  type SubmittedOptions,
  type TaskState,
} from './file-task';
import {
  readBody,
  readJson,
  sendAuthFailure,
  sendCode,
  sendData,
  sendJson,
  sendStorageError,
} from './http-replies';
import { TaskProcessor, type ProcessingSettings } from './task-processor';

export interface MineruCloudStubOptions {
  /** 0 (default): a free port. */
  port?: number;
  host?: string;
  /** The origin written into upload and result URLs (default `http://<host>:<port>`). */
  publicOrigin?: string;
  /** The bearer token required; unset: any non-empty token is accepted (a missing one never). */
  token?: string;
  /** Time a file waits `pending` before it runs (default 20 ms). */
  queueMs?: number;
  /** Time per page while `running` (default 50 ms). */
  pageMs?: number;
  /** Time in `converting` (default 20 ms). */
  convertingMs?: number;
  maxFilesPerBatch?: number;
  maxPages?: number;
  maxFileBytes?: number;
  zipMethod?: 'deflate' | 'store';
  faults?: FaultRule[];
}

export interface FileRecord {
  taskId: string;
  batchId: string | undefined;
  fileName: string;
  dataId: string | undefined;
  state: TaskState;
  errCode: number | undefined;
  totalPages: number | undefined;
  extractedPages: number;
  uploadedBytes: number | undefined;
  faults: FaultKind[];
  options: SubmittedOptions;
}

export interface StubStats {
  batchesCreated: number;
  urlTasksCreated: number;
  uploads: number;
  uploadsRejected: number;
  polls: number;
  pollErrors: number;
  downloads: number;
  authFailures: number;
  files: FileRecord[];
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

type Counters = Omit<StubStats, 'files'>;
const UPLOAD_URL_LIFETIME_S = 24 * 3600;

export async function startMineruCloudStub(
  options: MineruCloudStubOptions = {},
): Promise<MineruCloudStub> {
  const runtime = {
    queueMs: options.queueMs ?? 20,
    pageMs: options.pageMs ?? 50,
    convertingMs: options.convertingMs ?? 20,
    maxFilesPerBatch: options.maxFilesPerBatch ?? 200,
    maxPages: options.maxPages ?? 600,
    maxFileBytes: options.maxFileBytes ?? 200 * 1024 * 1024,
    zipMethod: options.zipMethod ?? ('deflate' as const),
  };
  const token = options.token;
  const script = new FaultScript(options.faults ?? []);
  const signingKey = randomUUID();
  const tasks = new Map<string, FileTask>();
  const batches = new Map<string, FileTask[]>();
  const uploads = new Map<string, FileTask>();
  const hosted = new Map<string, Buffer>();
  let counters = freshCounters();
  let recorded: FileTask[] = [];
  const processor = new TaskProcessor(
    (): ProcessingSettings => ({ ...runtime }),
    () => randomUUID(),
  );
  let origin = '';

  function register(task: FileTask): void {
    tasks.set(task.taskId, task);
    recorded.push(task);
    if (task.uploadKey) uploads.set(task.uploadKey, task);
  }

  function authorised(req: IncomingMessage): boolean {
    const header = req.headers.authorization ?? '';
    const presented = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    if (presented === undefined) return false;
    if (token === undefined) return true;
    const a = Buffer.from(presented);
    const b = Buffer.from(token);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  function signature(path: string, expires: number): string {
    return createHmac('sha256', signingKey).update(`PUT\n${path}\n${expires}`).digest('hex');
  }

  function uploadUrl(batchId: string, key: string): string {
    const path = `/oss/api-upload/${batchId}/${key}`;
    const expires = Math.floor(Date.now() / 1000) + UPLOAD_URL_LIFETIME_S;
    return `${origin}${path}?Expires=${expires}&OSSAccessKeyId=mineru-cloud-stub&Signature=${signature(path, expires)}`;
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stub');
    const path = url.pathname;
    if (path.startsWith('/_stub/')) return control(req, res, path);
    if (req.method === 'PUT' && path.startsWith('/oss/api-upload/')) return upload(req, res, url);
    if (req.method === 'GET' && path.startsWith('/cdn/pdf/')) return download(res, path);
    if (req.method === 'GET' && path.startsWith('/files/')) {
      const bytes = hosted.get(decodeURIComponent(path.slice('/files/'.length)));
      if (!bytes)
        return sendStorageError(res, 404, 'NoSuchKey', 'The specified key does not exist.');
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': bytes.length,
      });
      return void res.end(bytes);
    }
    if (!path.startsWith('/api/v4/'))
      return sendCode(res, ERROR_CODES.parameterError, `no route ${req.method} ${path}`, 404);
    if (!authorised(req)) {
      counters.authFailures += 1;
      return sendAuthFailure(res);
    }
    if (req.method === 'POST' && path === '/api/v4/file-urls/batch')
      return createUploadBatch(req, res);
    if (req.method === 'POST' && path === '/api/v4/extract/task') return createUrlTask(req, res);
    if (req.method === 'POST' && path === '/api/v4/extract/task/batch')
      return createUrlBatch(req, res);
    const batchPoll = /^\/api\/v4\/extract-results\/batch\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && batchPoll)
      return pollBatch(res, decodeURIComponent(batchPoll[1] ?? ''));
    const taskPoll = /^\/api\/v4\/extract\/task\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && taskPoll)
      return pollTask(res, decodeURIComponent(taskPoll[1] ?? ''));
    return sendCode(res, ERROR_CODES.parameterError, `no route ${req.method} ${path}`, 404);
  }

  /** Parses a JSON body with `schema`; answers 400 with MinerU's parameter error when it does not fit. */
  async function parseBody<T>(req: IncomingMessage, res: ServerResponse, schema: z.ZodType<T>) {
    const parsed = schema.safeParse(await readJson(req).catch(() => undefined));
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    sendCode(
      res,
      ERROR_CODES.parameterError,
      `parameter error: ${where}${issue?.message ?? 'invalid JSON body'}`,
      400,
    );
    return undefined;
  }

  async function createUploadBatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await parseBody(req, res, UploadBatchSchema);
    if (!body) return;
    if (body.files.length > runtime.maxFilesPerBatch) {
      return sendCode(
        res,
        ERROR_CODES.parameterError,
        `at most ${runtime.maxFilesPerBatch} files per batch`,
        400,
      );
    }
    const batchId = randomUUID();
    const members = body.files.map((file) =>
      newTask({
        taskId: randomUUID(),
        batchId,
        fileName: file.name,
        dataId: file.data_id,
        uploadKey: `${randomUUID()}${safeExtension(file.name)}`,
        options: submittedOptions(body, file),
        state: 'waiting-file',
      }),
    );
    members.forEach(register);
    batches.set(batchId, members);
    counters.batchesCreated += 1;
    sendData(res, {
      batch_id: batchId,
      file_urls: members.map((task) => uploadUrl(batchId, task.uploadKey ?? '')),
    });
  }

  async function upload(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const expires = Number(url.searchParams.get('Expires'));
    const given = url.searchParams.get('Signature') ?? '';
    const expected = signature(url.pathname, expires);
    const task = uploads.get(url.pathname.split('/').pop() ?? '');
    // A presigned URL signs no content type: a client that sends one breaks the signature.
    const contentType = req.headers['content-type'];
    if (!task || given !== expected || (contentType !== undefined && contentType !== '')) {
      req.resume();
      counters.uploadsRejected += 1;
      return sendStorageError(
        res,
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided.',
      );
    }
    if (expires * 1000 < Date.now()) {
      req.resume();
      counters.uploadsRejected += 1;
      return sendStorageError(res, 403, 'AccessDenied', 'Request has expired.');
    }
    const rejected = script
      .pick('upload', [task.fileName])
      .find((fault) => fault.kind === 'upload-rejected');
    if (rejected) {
      req.resume();
      counters.uploadsRejected += 1;
      const code =
        rejected.status === 403
          ? 'AccessDenied'
          : rejected.status === 503
            ? 'ServiceUnavailable'
            : 'InternalError';
      return sendStorageError(res, rejected.status, code, `Scripted fault ${rejected.status}`);
    }
    const body = await readBody(req, runtime.maxFileBytes);
    counters.uploads += 1;
    if (task.state === 'waiting-file') {
      if (body.overLimit) {
        task.state = 'failed';
        task.uploadedBytes = body.size;
        task.errCode = ERROR_CODES.fileTooLarge;
        task.errMsg = messageOf(ERROR_CODES.fileTooLarge);
      } else {
        processor.start(task, body.bytes, script.pick('process', [task.fileName]));
      }
    }
    res.writeHead(200, {
      etag: `"${createHash('md5').update(body.bytes).digest('hex').toUpperCase()}"`,
      'content-length': 0,
    });
    res.end();
  }

  /** The file a URL names, when it is one the double serves itself (it fetches nothing else). */
  function localFile(raw: string): { name: string; bytes: Buffer } | undefined {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return undefined;
    }
    const self = new URL(origin);
    const loopback = (host: string) => ['127.0.0.1', 'localhost', '[::1]'].includes(host);
    const sameServer =
      url.origin === self.origin ||
      (loopback(url.hostname) && loopback(self.hostname) && url.port === self.port);
    if (!sameServer) return undefined;
    const name = decodeURIComponent(url.pathname.split('/').pop() ?? '');
    if (url.pathname.startsWith('/files/')) {
      const bytes = hosted.get(decodeURIComponent(url.pathname.slice('/files/'.length)));
      return bytes ? { name, bytes } : undefined;
    }
    return undefined;
  }

  function startUrlTask(
    file: { url: string; data_id?: string | undefined },
    options: SubmittedOptions,
    batchId: string | undefined,
  ): FileTask | undefined {
    const found = localFile(file.url);
    if (!found) return undefined;
    const task = newTask({
      taskId: randomUUID(),
      batchId,
      fileName: found.name,
      dataId: file.data_id,
      uploadKey: undefined,
      options,
      state: 'pending',
    });
    register(task);
    counters.urlTasksCreated += 1;
    processor.start(task, found.bytes, script.pick('process', [task.fileName]));
    return task;
  }

  function refuseUrl(res: ServerResponse, url: string): void {
    sendCode(
      res,
      ERROR_CODES.requestParameterError,
      `the double reads only files it serves itself (${origin}/files/<name>, see hostFile); not ${url}`,
      400,
    );
  }

  async function createUrlTask(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await parseBody(req, res, UrlTaskSchema);
    if (!body) return;
    const task = startUrlTask(body, submittedOptions(body, body), undefined);
    if (!task) return refuseUrl(res, body.url);
    sendData(res, { task_id: task.taskId });
  }

  async function createUrlBatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await parseBody(req, res, UrlBatchSchema);
    if (!body) return;
    if (body.files.length > runtime.maxFilesPerBatch) {
      return sendCode(
        res,
        ERROR_CODES.parameterError,
        `at most ${runtime.maxFilesPerBatch} files per batch`,
        400,
      );
    }
    const refused = body.files.find((file) => !localFile(file.url));
    if (refused) return refuseUrl(res, refused.url);
    const batchId = randomUUID();
    const members = body.files
      .map((file) => startUrlTask(file, submittedOptions(body, file), batchId))
      .filter((task): task is FileTask => task !== undefined);
    batches.set(batchId, members);
    counters.batchesCreated += 1;
    sendData(res, { batch_id: batchId });
  }

  /** Counts the poll; answers the scripted error instead when a `status-error` rule hits. */
  function pollFault(res: ServerResponse, members: readonly FileTask[]): boolean {
    counters.polls += 1;
    const fault = script
      .pick(
        'poll',
        members.map((task) => task.fileName),
      )
      .find((f) => f.kind === 'status-error');
    if (!fault) return false;
    counters.pollErrors += 1;
    sendCode(res, ERROR_CODES.serviceError, messageOf(ERROR_CODES.serviceError), fault.status);
    return true;
  }

  function pollBatch(res: ServerResponse, batchId: string): void {
    const members = batches.get(batchId);
    if (!members) {
      counters.polls += 1;
      return sendCode(res, ERROR_CODES.taskNotFound);
    }
    if (pollFault(res, members)) return;
    sendData(res, {
      batch_id: batchId,
      extract_result: members.map((task) => ({
        file_name: task.fileName,
        ...describeTask(task, origin),
      })),
    });
  }

  function pollTask(res: ServerResponse, taskId: string): void {
    const task = tasks.get(taskId);
    // Files of an upload batch are polled through their batch, as with the real API.
    if (!task || task.uploadKey !== undefined) {
      counters.polls += 1;
      return sendCode(res, ERROR_CODES.taskNotFound);
    }
    if (pollFault(res, [task])) return;
    sendData(res, { task_id: task.taskId, ...describeTask(task, origin) });
  }

  function download(res: ServerResponse, path: string): void {
    const zipId = /^\/cdn\/pdf\/([^/]+)\.zip$/.exec(path)?.[1];
    const task = [...tasks.values()].find((t) => t.zipId !== undefined && t.zipId === zipId);
    if (!task?.zip)
      return sendStorageError(res, 404, 'NoSuchKey', 'The specified key does not exist.');
    counters.downloads += 1;
    res.writeHead(200, { 'content-type': 'application/zip', 'content-length': task.zip.length });
    res.end(task.zip);
  }

  async function control(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (req.method === 'GET' && path === '/_stub/stats') return sendJson(res, 200, stats());
    if (req.method === 'POST' && path === '/_stub/reset') {
      resetStats();
      return sendJson(res, 200, { reset: true });
    }
    if (req.method === 'PUT' && path === '/_stub/faults') {
      const body = z
        .object({ faults: z.array(FaultRuleSchema) })
        .safeParse(await readJson(req).catch(() => undefined));
      if (!body.success) return sendJson(res, 400, { error: { message: body.error.message } });
      script.set(body.data.faults.map(ruleFromJson));
      return sendJson(res, 200, { faults: body.data.faults.length });
    }
    if (req.method === 'PUT' && path === '/_stub/options') {
      const body = OptionsPatchSchema.safeParse(await readJson(req).catch(() => undefined));
      if (!body.success) return sendJson(res, 400, { error: { message: body.error.message } });
      Object.assign(runtime, body.data);
      return sendJson(res, 200, runtime);
    }
    const file = /^\/_stub\/files\/([^/]+)$/.exec(path);
    if (req.method === 'PUT' && file) {
      const body = await readBody(req, runtime.maxFileBytes);
      if (body.overLimit) return sendJson(res, 413, { error: { message: 'file too large' } });
      return sendJson(res, 200, { url: hostFile(decodeURIComponent(file[1] ?? ''), body.bytes) });
    }
    return sendJson(res, 404, { error: { message: `no control route ${req.method} ${path}` } });
  }

  function hostFile(name: string, bytes: Buffer): string {
    hosted.set(name, bytes);
    return `${origin}/files/${encodeURIComponent(name)}`;
  }

  function stats(): StubStats {
    return {
      ...counters,
      files: recorded.map((task) => ({
        taskId: task.taskId,
        batchId: task.batchId,
        fileName: task.fileName,
        dataId: task.dataId,
        state: task.state,
        errCode: task.errCode,
        totalPages: task.totalPages,
        extractedPages: task.extractedPages,
        uploadedBytes: task.uploadedBytes,
        faults: [...task.faults],
        options: structuredClone(task.options),
      })),
    };
  }

  function resetStats(): void {
    counters = freshCounters();
    recorded = [];
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
  origin = (options.publicOrigin ?? `http://${host}:${port}`).replace(/\/+$/, '');

  return {
    url: `${origin}/api/v4`,
    origin,
    port,
    stats,
    resetStats,
    setFaults: (rules) => script.set(rules),
    configure: (patch) => Object.assign(runtime, OptionsPatchSchema.parse(patch)),
    hostFile,
    close: async () => {
      await processor.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function freshCounters(): Counters {
  return {
    batchesCreated: 0,
    urlTasksCreated: 0,
    uploads: 0,
    uploadsRejected: 0,
    polls: 0,
    pollErrors: 0,
    downloads: 0,
    authFailures: 0,
  };
}

/** The extension of a client's file name, if it is a plain one (it ends up in a URL path). */
function safeExtension(name: string): string {
  const extension = extname(name).toLowerCase();
  return /^\.[a-z0-9]{1,8}$/.test(extension) ? extension : '';
}

function submittedOptions(
  body: Omit<SubmittedOptions, 'is_ocr' | 'page_ranges'>,
  file: { is_ocr?: boolean | undefined; page_ranges?: string | undefined },
): SubmittedOptions {
  const picked: Record<string, unknown> = {
    model_version: body.model_version,
    language: body.language,
    is_ocr: file.is_ocr,
    enable_formula: body.enable_formula,
    enable_table: body.enable_table,
    extra_formats: body.extra_formats,
    page_ranges: file.page_ranges,
  };
  return Object.fromEntries(Object.entries(picked).filter(([, value]) => value !== undefined));
}
