/**
 * The two result files of the spec: their schemas (which also document the downloads in the
 * OpenAPI document and validate them in tests) and their names, `<kind>_YYYYMMDD_HHMMSS.json`
 * in UTC.
 */
import { z } from 'zod';
import { NamedEntitiesSchema } from './entities';

const tokens = z.number().int().min(0);

/** Present only when part of the result is degraded (Pelita's addition to the seed's shape). */
const warnings = z
  .array(z.string())
  .min(1)
  .optional()
  .describe(
    'Only when part of the result is degraded: failed chunks kept as empty placeholders, a final ' +
      'summary written from plain text or joined from the chunk summaries, entities that could not be read',
  );

export const ChunkSummarySchema = z
  .object({
    chunk_index: z.number().int().min(0).describe('Position of the chunk, from 0'),
    original_tokens: tokens.describe(
      "Prompt tokens of the chunk's model call (usage), else words × 1.4",
    ),
    summary_tokens: tokens.describe('Completion tokens of the call (usage), else words × 1.4'),
    original_text: z.string(),
    summary: z.string().describe('Empty when the chunk failed'),
    key_points: z.array(z.string()),
    topics: z.array(z.string()),
    named_entities: NamedEntitiesSchema,
  })
  .strict();

export const SummaryFileSchema = z
  .object({
    total_initial_chunks: z.number().int().min(1),
    summarize_chunk: z.array(ChunkSummarySchema),
    final_summary: z
      .object({
        summary: z.string(),
        key_points_model: z.array(z.string()),
        key_points_aggregated: z.array(z.string()),
        topics_aggregated: z.array(z.string()),
        named_entities: z
          .object({
            final_summary_entities: NamedEntitiesSchema,
            aggregated_key_points_entities: NamedEntitiesSchema,
            chunk_entities_merged: NamedEntitiesSchema,
            all_entities_merged: NamedEntitiesSchema,
          })
          .strict(),
      })
      .strict(),
    final_summary_tokens: tokens,
    warnings,
  })
  .strict();
export type SummaryFile = z.infer<typeof SummaryFileSchema>;
export type ChunkSummary = z.infer<typeof ChunkSummarySchema>;

export const EntitiesFileSchema = z
  .object({
    named_entities: NamedEntitiesSchema,
    input_tokens: tokens,
    timestamp: z.iso.datetime(),
    warnings,
  })
  .strict();
export type EntitiesFile = z.infer<typeof EntitiesFileSchema>;

export type ResultKind = 'summary' | 'entities';

/** `summary_20250131_235959.json`, the time in UTC. */
export function resultFileName(kind: ResultKind, at: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  const date = `${at.getUTCFullYear()}${pad(at.getUTCMonth() + 1)}${pad(at.getUTCDate())}`;
  const time = `${pad(at.getUTCHours())}${pad(at.getUTCMinutes())}${pad(at.getUTCSeconds())}`;
  return `${kind}_${date}_${time}.json`;
}
