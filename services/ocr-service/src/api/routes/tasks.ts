/**
 * The task endpoints: `POST /api/v1/pdfs` (one file or URL), `/merge` (several into one PDF),
 * `/bulk` (URLs, one task each), `/bulk/upload` (files, one task each), and the status record.
 * They answer as soon as the task is queued; a worker does the rest.
 */
import {
  defineRoute,
  ErrorBodySchema,
  HttpError,
  type Logger,
  type RouteDefinition,
  type UploadedFile,
} from '@pelita/kit';
import type { RequestHandler, Response } from 'express';
import type { StatusStore } from '../../status/status-store';
import { taskBody } from '../task-body';
import { nameOf, uploadInput, urlInput, type SubmittedInput } from '../task-inputs';
import {
  BulkAnswer,
  bulkBody,
  BulkUploadAnswer,
  BulkUploadQuery,
  filesForm,
  mergeQuery,
  PdfForm,
  PdfQuery,
  queueingErrors,
  TaskAccepted,
  TaskStatus,
  TaskStatusParams,
} from '../task-schemas';
import {
  RETRY_AFTER_SECONDS,
  type Processing,
  type TaskOptions,
  type TaskRequest,
  type TaskSubmission,
} from '../task-submission';
import { using } from '../unavailable';

export interface TaskRoutesDeps {
  submission: TaskSubmission;
  statuses: StatusStore;
  /** The kit's `requestWorkspace`: uploads land there and go with the response. */
  workspace: RequestHandler;
  maxUploadBytes: number;
  /** MAX_FILES_PER_REQUEST: inputs of one merge, tasks of one bulk request. */
  maxInputs: number;
}

const TAGS = ['tasks'];

/** What the routes that queue one task answer. */
const ONE_TASK_ANSWERS = {
  200: { description: 'Queued', schema: TaskAccepted },
  409: { description: 'The custom `task_id` is taken (`task_exists`)', schema: ErrorBodySchema },
  ...queueingErrors,
};

function optionsOf(
  query: Omit<TaskOptions, 'metadata_document' | 'processing'>,
  processing: Processing,
  metadata: Record<string, unknown> | undefined,
): TaskOptions {
  return {
    processing,
    type_ocr: query.type_ocr,
    representasi_count: query.representasi_count,
    metadata_document: metadata,
  };
}

/** A full queue is answered with `Retry-After`, which the kit's error handler does not set. */
async function retryAfterWhenFull<T>(res: Response, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof HttpError && err.status === 429) {
      res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    }
    throw err;
  }
}

const missingInput = (message: string) => new HttpError(400, 'missing_input', message);

export function taskRoutes(deps: TaskRoutesDeps): RouteDefinition[] {
  const { submission, statuses, workspace, maxUploadBytes, maxInputs } = deps;
  const checkUploads = (files: UploadedFile[]) => Promise.all(files.map(uploadInput));

  /** Queues `request`; a full queue is answered with Retry-After. */
  const submitOne = (res: Response, log: Logger, request: TaskRequest) =>
    retryAfterWhenFull(res, () => submission.submit(request, log));

  /** Queues one task per input, each named after its input (the bulk endpoints). */
  const submitEachInput = (
    res: Response,
    log: Logger,
    inputs: SubmittedInput[],
    options: TaskOptions,
  ) =>
    retryAfterWhenFull(res, () =>
      submission.submitEach(
        inputs.map((input) => ({ inputs: [input], pdfName: nameOf(input), options })),
        log,
      ),
    );

  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/pdfs',
      summary: 'Queue one document for OCR: an uploaded file or a PDF URL',
      description:
        'Give exactly one of the multipart field `file` and the query parameter `url_file`. ' +
        'Office files and images are converted to PDF by the worker. `metadata_document` is ' +
        'form JSON text, or the whole body when it is sent as `application/json` (then ' +
        '`url_file` carries the document). The answer comes as soon as the task is queued ' +
        '(200, as the seed answers); follow it at `GET /api/v1/tasks/{task_id}/status`.',
      tags: TAGS,
      before: [
        workspace,
        taskBody({
          field: 'file',
          maxFiles: 1,
          maxBytes: maxUploadBytes,
          list: false,
          jsonMetadata: true,
        }),
      ],
      request: { query: PdfQuery, body: PdfForm, bodyContentType: 'multipart/form-data' },
      responses: ONE_TASK_ANSWERS,
      handler: async ({ query, body }, req, res) => {
        const processing = submission.engineFor(query.processing);
        let input: SubmittedInput;
        if (body.file && query.url_file) {
          throw new HttpError(
            400,
            'conflicting_input',
            'Send either `file` or `url_file`, not both',
          );
        } else if (body.file) {
          input = await uploadInput(body.file);
        } else if (query.url_file) {
          input = urlInput(query.url_file);
        } else {
          throw missingInput(
            req.is('application/json')
              ? 'A JSON body is the metadata_document: give the PDF in the query parameter `url_file`'
              : 'Send a file in the multipart field `file` or a PDF URL in the query parameter `url_file`',
          );
        }
        return submitOne(res, req.log, {
          taskId: query.task_id,
          inputs: [input],
          pdfName: nameOf(input),
          options: optionsOf(query, processing, body.metadata_document),
        });
      },
    }),

    defineRoute({
      method: 'get',
      path: '/api/v1/tasks/:task_id/status',
      summary: 'Status and progress of a task',
      description:
        'The status record, from any API replica: `error` and `error_code` only when `failed`. ' +
        'Pelita adds `queue_wait_ms`, `processing_ms` and `finished_at` once known. Finished ' +
        'records beyond STATUS_RECORDS_KEPT (1000) are evicted, oldest first.',
      tags: TAGS,
      request: { params: TaskStatusParams },
      responses: {
        200: { description: 'The status record', schema: TaskStatus },
        404: { description: 'No such task (`task_not_found`)', schema: ErrorBodySchema },
        503: { description: 'Redis failed (`queue_unavailable`)', schema: ErrorBodySchema },
      },
      handler: async ({ params }) => {
        const record = await using('redis', () => statuses.get(params.task_id));
        if (!record) {
          throw new HttpError(404, 'task_not_found', `No task ${params.task_id}`);
        }
        if (record.status === 'failed') return record;
        const { error: _error, error_code: _code, ...rest } = record;
        return rest;
      },
    }),

    defineRoute({
      method: 'post',
      path: '/api/v1/pdfs/merge',
      summary: 'Queue several files and URLs merged into one PDF, as one task',
      description:
        `Inputs in order: the uploaded \`files\` first, then each \`url_file\`; 1 to ${maxInputs} ` +
        'in all. Non-PDF inputs are converted before the merge. The merged PDF is stored under ' +
        '`ocr-documents/{task_id}.pdf` like an upload. Answered like `POST /api/v1/pdfs`.',
      tags: TAGS,
      before: [
        workspace,
        taskBody({ field: 'files', maxFiles: maxInputs, maxBytes: maxUploadBytes, list: true }),
      ],
      request: {
        query: mergeQuery(maxInputs),
        body: filesForm(0, maxInputs).default({ files: [] }),
        bodyContentType: 'multipart/form-data',
      },
      responses: ONE_TASK_ANSWERS,
      handler: async ({ query, body }, req, res) => {
        const processing = submission.engineFor(query.processing);
        const count = body.files.length + query.url_file.length;
        if (count === 0) {
          throw missingInput('Send files in the multipart field `files` or URLs in `url_file`');
        }
        if (count > maxInputs) {
          throw new HttpError(
            400,
            'too_many_inputs',
            `A merge takes at most ${maxInputs} inputs; got ${count}`,
          );
        }
        const inputs = [...(await checkUploads(body.files)), ...query.url_file.map(urlInput)];
        return submitOne(res, req.log, {
          taskId: query.task_id,
          inputs,
          pdfName: query.pdf_name,
          options: optionsOf(query, processing, body.metadata_document),
        });
      },
    }),

    defineRoute({
      method: 'post',
      path: '/api/v1/pdfs/bulk',
      summary: 'Queue many PDF URLs, one task each',
      description:
        'One item per URL, in order: the queued task, or `error` (`queue_full`, ' +
        '`queue_unavailable`) when the queue filled up (or Redis failed) part-way; the URLs ' +
        'after that one are not tried. Refused from the first URL: 429 or 503.',
      tags: TAGS,
      request: { body: bulkBody(maxInputs) },
      responses: {
        200: { description: 'One item per URL', schema: BulkAnswer },
        ...queueingErrors,
      },
      handler: async ({ body }, req, res) => {
        const processing = submission.engineFor(body.processing);
        const outcomes = await submitEachInput(
          res,
          req.log,
          body.url_files.map(urlInput),
          optionsOf(body, processing, body.metadata_document),
        );
        return {
          tasks: outcomes.map((outcome, i) => ({ url_file: body.url_files[i] ?? '', ...outcome })),
        };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/api/v1/pdfs/bulk/upload',
      summary: 'Queue many uploaded files, one task each',
      description:
        'Every file is checked before any task is queued (one bad file refuses the request). ' +
        'One item per file, in order, as `POST /api/v1/pdfs/bulk` answers.',
      tags: TAGS,
      before: [
        workspace,
        taskBody({ field: 'files', maxFiles: maxInputs, maxBytes: maxUploadBytes, list: true }),
      ],
      request: {
        query: BulkUploadQuery,
        body: filesForm(1, maxInputs),
        bodyContentType: 'multipart/form-data',
      },
      responses: {
        200: { description: 'One item per file', schema: BulkUploadAnswer },
        ...queueingErrors,
      },
      handler: async ({ query, body }, req, res) => {
        const processing = submission.engineFor(query.processing);
        const inputs = await checkUploads(body.files);
        const outcomes = await submitEachInput(
          res,
          req.log,
          inputs,
          optionsOf(query, processing, body.metadata_document),
        );
        return {
          tasks: outcomes.map((outcome, i) => ({
            file_name: nameOf(inputs[i] as SubmittedInput),
            ...outcome,
          })),
        };
      },
    }),
  ];
}
