/** `POST /summarize`: multipart text file in, `summary_YYYYMMDD_HHMMSS.json` download out. */
import type { RouteDefinition } from '@pelita/kit';
import type { RequestHandler } from 'express';
import { SummaryFileSchema, type SummaryFile } from '../output-files';
import type { SummarizeParams } from '../summary-pipeline';
import { SummarizeForm } from './form-fields';
import { textFileRoute, type ResultRequest } from './text-file-route';

export interface SummarizeRouteDeps {
  upload: RequestHandler[];
  summarize: (
    text: string,
    params: SummarizeParams,
    request: ResultRequest,
  ) => Promise<SummaryFile>;
}

export function summarizeRoute({ upload, summarize }: SummarizeRouteDeps): RouteDefinition {
  return textFileRoute({
    path: '/summarize',
    summary: 'Hierarchical summary and named entities of a text file',
    description:
      'Splits the text into chunks of whole sentences, summarises them in parallel, ' +
      're-summarises while the combined summaries exceed `target_context` words, merges them ' +
      'into a final summary and aggregates the named entities. Answers a JSON file download.',
    tags: ['summaries'],
    upload,
    form: SummarizeForm,
    result: {
      kind: 'summary',
      description: 'The summary file, as a download named `summary_YYYYMMDD_HHMMSS.json` (UTC)',
      schema: SummaryFileSchema,
    },
    compute: (text, form, request) =>
      summarize(
        text,
        {
          chunkSize: form.chunk_size,
          targetContext: form.target_context,
          enableNer: form.enable_ner,
        },
        request,
      ),
  });
}
