/** `POST /extract_entities`: multipart text file in, `entities_YYYYMMDD_HHMMSS.json` out. */
import type { RouteDefinition } from '@pelita/kit';
import type { RequestHandler } from 'express';
import { EntitiesFileSchema, type EntitiesFile } from '../output-files';
import { ExtractEntitiesForm } from './form-fields';
import { textFileRoute, type ResultRequest } from './text-file-route';

export interface ExtractEntitiesRouteDeps {
  upload: RequestHandler[];
  extractEntities: (text: string, request: ResultRequest) => Promise<EntitiesFile>;
}

export function extractEntitiesRoute({
  upload,
  extractEntities,
}: ExtractEntitiesRouteDeps): RouteDefinition {
  return textFileRoute({
    path: '/extract_entities',
    summary: 'Named entities of a text file (no summary)',
    description:
      'Long texts are split like `/summarize` splits them (10,000-word chunks); the entity sets ' +
      'of the chunks are merged without duplicates. Answers a JSON file download.',
    tags: ['entities'],
    upload,
    form: ExtractEntitiesForm,
    result: {
      kind: 'entities',
      description: 'The entities file, as a download named `entities_YYYYMMDD_HHMMSS.json` (UTC)',
      schema: EntitiesFileSchema,
    },
    compute: (text, _form, request) => extractEntities(text, request),
  });
}
