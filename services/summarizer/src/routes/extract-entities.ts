/** `POST /extract_entities`: multipart text file in, `entities_YYYYMMDD_HHMMSS.json` out. */
import { defineRoute, type Logger, type RouteDefinition, clientGoneSignal } from '@pelita/kit';
import type { RequestHandler } from 'express';
import { EntitiesFileSchema, type EntitiesFile } from '../output-files';
import { readTextUpload } from '../upload';
import { ExtractEntitiesForm } from './form-fields';
import { uploadErrorResponses } from './responses';
import { sendResultFile } from './result-download';

export interface ExtractEntitiesRouteDeps {
  upload: RequestHandler[];
  extractEntities: (
    text: string,
    request: { signal: AbortSignal; logger: Logger },
  ) => Promise<EntitiesFile>;
}

export function extractEntitiesRoute({
  upload,
  extractEntities,
}: ExtractEntitiesRouteDeps): RouteDefinition {
  return defineRoute({
    method: 'post',
    path: '/extract_entities',
    summary: 'Named entities of a text file (no summary)',
    description:
      'Long texts are split like `/summarize` splits them (10,000-word chunks); the entity sets ' +
      'of the chunks are merged without duplicates. Answers a JSON file download.',
    tags: ['entities'],
    before: upload,
    request: { body: ExtractEntitiesForm, bodyContentType: 'multipart/form-data' },
    responses: {
      200: {
        description: 'The entities file, as a download named `entities_YYYYMMDD_HHMMSS.json` (UTC)',
        schema: EntitiesFileSchema,
      },
      ...uploadErrorResponses,
    },
    handler: async ({ body }, req, res) => {
      const text = await readTextUpload(body.file);
      const result = await extractEntities(text, {
        signal: clientGoneSignal(res),
        logger: req.log,
      });
      await sendResultFile(res, 'entities', result);
    },
  });
}
