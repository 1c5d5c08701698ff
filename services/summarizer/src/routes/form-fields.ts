/** Schemas of the multipart forms: validation and the OpenAPI description in one place. */
import { uploadedFile } from '@pelita/kit';
import { z } from 'zod';
import { DEFAULT_CHUNK_SIZE } from '../chunker';
import { DEFAULT_TARGET_CONTEXT } from '../summary-pipeline';

const MAX_WORDS = 10_000_000;

const fileField = uploadedFile(
  'a text file is required in the multipart field `file`',
  'Text file (UTF-8, or UTF-16 with BOM)',
);

const wordCount = (fallback: number, description: string) =>
  z.coerce.number().int().min(1).max(MAX_WORDS).default(fallback).meta({ description });

export const SummarizeForm = z.object({
  file: fileField,
  chunk_size: wordCount(
    DEFAULT_CHUNK_SIZE,
    'Largest chunk, in words (a longer sentence is a chunk of its own); lowered to what the ' +
      "model's context takes when its length is known",
  ),
  target_context: wordCount(
    DEFAULT_TARGET_CONTEXT,
    'Combined chunk summaries longer than this many words are summarised again',
  ),
  enable_ner: z
    .stringbool({ truthy: ['true'], falsy: ['false'], case: 'insensitive' })
    .default(true)
    .meta({
      type: 'boolean',
      description: 'Extract named entities: `true` (default) or `false`, any letter case',
    }),
});

export const ExtractEntitiesForm = z.object({ file: fileField });
