/** MinerU's v4 API: upload batches, URL tasks and batches, and the two poll endpoints. */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname } from 'node:path';
import type { z } from 'zod';
import { UploadBatchSchema, UrlBatchSchema, UrlTaskSchema } from '../api-schemas';
import { ERROR_CODES, messageOf } from '../error-codes';
import { describeTask, newTask, type FileTask, type SubmittedOptions } from '../file-task';
import { readJson, sendAuthFailure, sendCode, sendData } from '../http-replies';
import type { StubContext } from '../stub-context';

const BATCH_POLL = /^\/api\/v4\/extract-results\/batch\/([^/]+)$/;
const TASK_POLL = /^\/api\/v4\/extract\/task\/([^/]+)$/;

export async function mineruApi(
  ctx: StubContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  if (!authorised(ctx, req)) {
    ctx.registry.counters.authFailures += 1;
    return sendAuthFailure(res);
  }
  if (req.method === 'POST' && path === '/api/v4/file-urls/batch') {
    return createUploadBatch(ctx, req, res);
  }
  if (req.method === 'POST' && path === '/api/v4/extract/task') return createUrlTask(ctx, req, res);
  if (req.method === 'POST' && path === '/api/v4/extract/task/batch') {
    return createUrlBatch(ctx, req, res);
  }
  const batchId = BATCH_POLL.exec(path)?.[1];
  if (req.method === 'GET' && batchId) return pollBatch(ctx, res, decodeURIComponent(batchId));
  const taskId = TASK_POLL.exec(path)?.[1];
  if (req.method === 'GET' && taskId) return pollTask(ctx, res, decodeURIComponent(taskId));
  sendCode(res, ERROR_CODES.parameterError, `no route ${req.method} ${path}`, 404);
}

function authorised(ctx: StubContext, req: IncomingMessage): boolean {
  const presented = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (presented === undefined) return false;
  if (ctx.token === undefined) return true;
  const a = Buffer.from(presented);
  const b = Buffer.from(ctx.token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The body parsed with `schema`, or undefined once a 400 with MinerU's parameter error is sent. */
async function parseBody<T>(
  req: IncomingMessage,
  res: ServerResponse,
  schema: z.ZodType<T>,
): Promise<T | undefined> {
  const parsed = schema.safeParse(await readJson(req).catch(() => undefined));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  const why = issue?.message ?? 'invalid JSON body';
  sendCode(res, ERROR_CODES.parameterError, `parameter error: ${where}${why}`, 400);
  return undefined;
}

function tooManyFiles(ctx: StubContext, res: ServerResponse, count: number): boolean {
  if (count <= ctx.runtime.maxFilesPerBatch) return false;
  const limit = ctx.runtime.maxFilesPerBatch;
  sendCode(res, ERROR_CODES.parameterError, `at most ${limit} files per batch`, 400);
  return true;
}

async function createUploadBatch(
  ctx: StubContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await parseBody(req, res, UploadBatchSchema);
  if (!body || tooManyFiles(ctx, res, body.files.length)) return;
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
  members.forEach((task) => ctx.registry.add(task));
  ctx.registry.addBatch(batchId, members);
  sendData(res, {
    batch_id: batchId,
    file_urls: members.map((task) => ctx.signer.url(ctx.origin, batchId, task.uploadKey ?? '')),
  });
}

/** The file a URL names when the double serves it itself (it fetches nothing else). */
function localFile(ctx: StubContext, raw: string): { name: string; bytes: Buffer } | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  const self = new URL(ctx.origin);
  const loopback = (host: string) => ['127.0.0.1', 'localhost', '[::1]'].includes(host);
  const sameServer =
    url.origin === self.origin ||
    (loopback(url.hostname) && loopback(self.hostname) && url.port === self.port);
  if (!sameServer || !url.pathname.startsWith('/files/')) return undefined;
  const name = decodeURIComponent(url.pathname.slice('/files/'.length));
  const bytes = ctx.registry.hostedFile(name);
  return bytes ? { name, bytes } : undefined;
}

function startUrlTask(
  ctx: StubContext,
  file: { name: string; bytes: Buffer },
  dataId: string | undefined,
  options: SubmittedOptions,
  batchId: string | undefined,
): FileTask {
  const task = newTask({
    taskId: randomUUID(),
    batchId,
    fileName: file.name,
    dataId,
    uploadKey: undefined,
    options,
    state: 'pending',
  });
  ctx.registry.add(task);
  ctx.registry.counters.urlTasksCreated += 1;
  ctx.processor.start(task, file.bytes, ctx.script.pick('process', [task.fileName]));
  return task;
}

function refuseUrl(ctx: StubContext, res: ServerResponse, url: string): void {
  const served = `${ctx.origin}/files/<name>`;
  sendCode(
    res,
    ERROR_CODES.requestParameterError,
    `the double reads only files it serves itself (${served}, see hostFile); not ${url}`,
    400,
  );
}

async function createUrlTask(
  ctx: StubContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await parseBody(req, res, UrlTaskSchema);
  if (!body) return;
  const file = localFile(ctx, body.url);
  if (!file) return refuseUrl(ctx, res, body.url);
  const task = startUrlTask(ctx, file, body.data_id, submittedOptions(body, body), undefined);
  sendData(res, { task_id: task.taskId });
}

async function createUrlBatch(
  ctx: StubContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await parseBody(req, res, UrlBatchSchema);
  if (!body || tooManyFiles(ctx, res, body.files.length)) return;
  const files = body.files.map((entry) => ({ entry, file: localFile(ctx, entry.url) }));
  const refused = files.find(({ file }) => !file);
  if (refused) return refuseUrl(ctx, res, refused.entry.url);
  const batchId = randomUUID();
  const members = files.map(({ entry, file }) =>
    startUrlTask(
      ctx,
      file as { name: string; bytes: Buffer },
      entry.data_id,
      submittedOptions(body, entry),
      batchId,
    ),
  );
  ctx.registry.addBatch(batchId, members);
  sendData(res, { batch_id: batchId });
}

/** Counts the poll; answers the scripted error instead when a `status-error` rule hits. */
function pollFault(ctx: StubContext, res: ServerResponse, members: readonly FileTask[]): boolean {
  ctx.registry.counters.polls += 1;
  const names = members.map((task) => task.fileName);
  const fault = ctx.script.pick('poll', names).find((f) => f.kind === 'status-error');
  if (!fault) return false;
  ctx.registry.counters.pollErrors += 1;
  sendCode(res, ERROR_CODES.serviceError, messageOf(ERROR_CODES.serviceError), fault.status);
  return true;
}

function pollBatch(ctx: StubContext, res: ServerResponse, batchId: string): void {
  const members = ctx.registry.batch(batchId);
  if (!members) {
    ctx.registry.counters.polls += 1;
    return sendCode(res, ERROR_CODES.taskNotFound);
  }
  if (pollFault(ctx, res, members)) return;
  sendData(res, {
    batch_id: batchId,
    extract_result: members.map((task) => ({
      file_name: task.fileName,
      ...describeTask(task, ctx.origin),
    })),
  });
}

function pollTask(ctx: StubContext, res: ServerResponse, taskId: string): void {
  const task = ctx.registry.task(taskId);
  // Files of an upload batch are polled through their batch, as with the real API.
  if (!task || task.uploadKey !== undefined) {
    ctx.registry.counters.polls += 1;
    return sendCode(res, ERROR_CODES.taskNotFound);
  }
  if (pollFault(ctx, res, [task])) return;
  sendData(res, { task_id: task.taskId, ...describeTask(task, ctx.origin) });
}

/** The extension of a client's file name, if it is a plain one (it ends up in a URL path). */
function safeExtension(name: string): string {
  const extension = extname(name).toLowerCase();
  return /^\.[a-z0-9]{1,8}$/.test(extension) ? extension : '';
}

/** The extraction options a client sent for one file, for the statistics. */
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
