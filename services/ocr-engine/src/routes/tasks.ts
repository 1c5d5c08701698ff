/** The self-hosted MinerU task API: submit (`POST /tasks`), status, result. */
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { badRequest, defineRoute, HttpError, notFound, type RouteDefinition } from '@pelita/kit';
import type { Request, RequestHandler } from 'express';
import { submitTask, type TaskSubmission } from '../tasks/task-intake';
import type { TaskRecord } from '../tasks/task-record';
import { QueueFullError, type TaskRunner } from '../tasks/task-runner';
import type { TaskStore } from '../tasks/task-store';
import {
  TaskForm,
  TaskIdParams,
  TaskNotFinished,
  TaskResultBody,
  TaskStatus,
  TaskSubmitted,
} from './schemas';

export interface TaskRoutesDeps {
  upload: RequestHandler[];
  store: TaskStore;
  runner: TaskRunner;
  version: string;
}

export function taskRoutes({ upload, store, runner, version }: TaskRoutesDeps): RouteDefinition[] {
  const statusOf = (record: TaskRecord, req: Request) => {
    const base = `${req.protocol}://${req.get('host') ?? 'localhost'}/tasks/${encodeURIComponent(record.task_id)}`;
    const queuedAhead = runner.queuedAhead(record.task_id);
    const { options: _options, uploads: _uploads, traceparent: _traceparent, ...status } = record;
    return {
      ...status,
      status_url: base,
      result_url: `${base}/result`,
      ...(queuedAhead === undefined ? {} : { queued_ahead: queuedAhead }),
    };
  };
  const find = (taskId: string) => {
    const record = store.get(taskId);
    if (!record) throw notFound('Task not found');
    return record;
  };

  return [
    defineRoute({
      method: 'post',
      path: '/tasks',
      summary: 'Submit an asynchronous parse task',
      description:
        'Queues the files for extraction and answers at once with the task; poll its status, ' +
        'then read its result.',
      tags: ['tasks'],
      before: upload,
      successStatus: 202,
      request: { body: TaskForm, bodyContentType: 'multipart/form-data' },
      responses: {
        202: { description: 'Queued', schema: TaskSubmitted },
        413: { description: 'A file is larger than MAX_UPLOAD_BYTES' },
        415: { description: 'Not multipart/form-data' },
        503: { description: 'The queue is full (Retry-After says when to try again)' },
      },
      handler: async ({ body }, req, res) => {
        if (body.response_format_zip) {
          throw badRequest('response_format_zip is not supported: results are JSON');
        }
        const submission: TaskSubmission = {
          files: body.files,
          backend: body.backend,
          options: {
            backend: body.backend,
            parse_method: body.parse_method,
            lang_list: body.lang_list,
            image_analysis: body.image_analysis,
            max_images: body.max_images,
            start_page_id: body.start_page_id,
            end_page_id: body.end_page_id,
            return_md: body.return_md,
            return_content_list: body.return_content_list,
            return_images: body.return_images,
          },
        };
        const record = await submitTask(submission, { store, runner }).catch((err: unknown) => {
          if (!(err instanceof QueueFullError)) throw err;
          res.setHeader('Retry-After', '30');
          throw new HttpError(503, 'queue_full', err.message);
        });
        return { ...statusOf(record, req), message: 'Task submitted successfully' };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/tasks/:task_id',
      summary: 'Task status',
      tags: ['tasks'],
      request: { params: TaskIdParams },
      responses: {
        200: { description: 'The task', schema: TaskStatus },
        404: { description: 'No such task (never submitted, or removed after the retention)' },
      },
      handler: ({ params }, req) => statusOf(find(params.task_id), req),
    }),
    defineRoute({
      method: 'get',
      path: '/tasks/:task_id/result',
      summary: 'Task result',
      description:
        '202 while the task waits or runs, 409 when it failed, 200 with the result per file ' +
        '(keyed by the file name without its extension).',
      tags: ['tasks'],
      request: { params: TaskIdParams },
      responses: {
        200: { description: 'The result', schema: TaskResultBody },
        202: { description: 'Not finished yet', schema: TaskNotFinished },
        404: { description: 'No such task' },
        409: { description: 'The task failed', schema: TaskNotFinished },
      },
      handler: async ({ params }, req, res) => {
        const record = find(params.task_id);
        if (record.status === 'pending' || record.status === 'processing') {
          res
            .status(202)
            .json({ ...statusOf(record, req), message: 'Task result is not ready yet' });
          return;
        }
        if (record.status === 'failed') {
          res.status(409).json({ ...statusOf(record, req), message: 'Task execution failed' });
          return;
        }
        const stored = await store.readResult(record.task_id);
        const { return_md, return_content_list, return_images } = record.options;
        const results: Record<string, Record<string, unknown>> = {};
        for (const [stem, file] of Object.entries(stored)) {
          const images: Record<string, string> = {};
          if (return_images) {
            for (const image of file.images) {
              const bytes = await readFile(join(store.folder(record.task_id), image.file));
              images[image.name] =
                `data:${mimeOfName(image.name)};base64,${bytes.toString('base64')}`;
            }
          }
          results[stem] = {
            ...(return_md ? { md_content: file.md_content } : {}),
            // MinerU returns the content list as the JSON text of its file.
            ...(return_content_list ? { content_list: JSON.stringify(file.content_list) } : {}),
            ...(return_images ? { images } : {}),
          };
        }
        return { backend: record.backend, version, results };
      },
    }),
  ];
}

function mimeOfName(name: string): string {
  const ext = extname(name).slice(1);
  return ext === 'jpg' ? 'image/jpeg' : `image/${ext}`;
}
