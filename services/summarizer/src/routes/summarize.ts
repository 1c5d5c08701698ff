/** `POST /summarize`: multipart text file in, `summary_YYYYMMDD_HHMMSS.json` download out. */
import { defineRoute, type Logger, type RouteDefinition, clientGoneSignal } from '@pelita/kit';
import type { RequestHandler } from 'express';
import { SummaryFileSchema, type SummaryFile } from '../output-files';
import type { SummarizeParams } from '../summary-pipeline';
import { readTextUpload } from '../upload';
import { SummarizeForm } from './form-fields';
import { uploadErrorResponses } from './responses';
import { sendResultFile } from './result-download';

export interface SummarizeRouteDeps {
  upload: RequestHandler[];
  summarize: (
    text: string,
    params: SummarizeParams,
    request: { signal: AbortSignal; logger: Logger },
  ) => Promise<SummaryFile>;
}

export function summarizeRoute({ upload, summarize }: SummarizeRouteDeps): RouteDefinition {
  return defineRoute({
    method: 'post',
    path: '/summarize',
    summary: 'Hierarchical summary and named entities of a text file',
    description:
      'Splits the text into chunks of whole sentences, summarises them in parallel, ' +
      're-summarises while the combined summaries exceed `target_context` words, merges them ' +
      'into a final summary and aggregates the named entities. Answers a JSON file download.',
    tags: ['summaries'],
    before: upload,
    request: { body: SummarizeForm, bodyContentType: 'multipart/form-data' },
    responses: {
      200: {
        description: 'The summary file, as a download named `summary_YYYYMMDD_HHMMSS.json` (UTC)',
        schema: SummaryFileSchema,
      },
      ...uploadErrorResponses,
    },
    handler: async ({ body }, req, res) => {
      const text = await readTextUpload(body.file);
      const result = await summarize(
        text,
        {
          chunkSize: body.chunk_size,
          targetContext: body.target_context,
          enableNer: body.enable_ner,
        },
        { signal: clientGoneSignal(res), logger: req.log },
      );
      await sendResultFile(res, 'summary', result);
    },
  });
}
