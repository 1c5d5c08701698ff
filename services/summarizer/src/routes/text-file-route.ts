/**
 * The shape both endpoints share: a text file in the multipart field `file` (beside the form's
 * other fields) goes in, the work is done for the request, and the result goes back as a JSON
 * file download named for its kind and the time.
 */
import {
  clientGoneSignal,
  defineRoute,
  type Logger,
  type RouteDefinition,
  type UploadedFile,
} from '@pelita/kit';
import type { RequestHandler } from 'express';
import type { z } from 'zod';
import type { ResultKind } from '../output-files';
import { readTextUpload } from '../upload';
import { uploadErrorResponses } from './responses';
import { sendResultFile } from './result-download';

/** The request a result is computed for: cancelled when the client goes, logged with its logger. */
export interface ResultRequest {
  signal: AbortSignal;
  logger: Logger;
}

export interface TextFileRoute<F extends z.ZodType<{ file: UploadedFile }>> {
  path: string;
  summary: string;
  description: string;
  tags: string[];
  /** The workspace and multipart middleware, shared by both endpoints. */
  upload: RequestHandler[];
  form: F;
  result: { kind: ResultKind; description: string; schema: z.ZodType };
  compute: (text: string, form: z.output<F>, request: ResultRequest) => Promise<unknown>;
}

export function textFileRoute<F extends z.ZodType<{ file: UploadedFile }>>(
  route: TextFileRoute<F>,
): RouteDefinition {
  const { upload, form, result, compute, ...endpoint } = route;
  return defineRoute({
    method: 'post',
    ...endpoint,
    before: upload,
    request: { body: form, bodyContentType: 'multipart/form-data' },
    responses: {
      200: { description: result.description, schema: result.schema },
      ...uploadErrorResponses,
    },
    handler: async ({ body }, req, res) => {
      const text = await readTextUpload(body.file);
      const answer = await compute(text, body as z.output<F>, {
        signal: clientGoneSignal(res),
        logger: req.log,
      });
      await sendResultFile(res, result.kind, answer);
    },
  });
}
