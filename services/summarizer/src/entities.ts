/**
 * The named-entity object of the spec (eight keys, arrays of strings): normalising what a model
 * returns, and merging sets without duplicates.
 */
import { z } from 'zod';

export const ENTITY_KEYS = ['PER', 'ORG', 'GPE', 'LOC', 'DATE', 'TIME', 'EVENT', 'FAC'] as const;
export type EntityKey = (typeof ENTITY_KEYS)[number];
export type NamedEntities = Record<EntityKey, string[]>;

export const NamedEntitiesSchema = z
  .object({
    PER: z.array(z.string()).describe('persons'),
    ORG: z.array(z.string()).describe('organisations'),
    GPE: z.array(z.string()).describe('countries, cities, regions'),
    LOC: z.array(z.string()).describe('other places'),
    DATE: z.array(z.string()),
    TIME: z.array(z.string()),
    EVENT: z.array(z.string()),
    FAC: z.array(z.string()).describe('facilities: buildings, airports, bridges'),
  })
  .strict();

export function emptyEntities(): NamedEntities {
  return { PER: [], ORG: [], GPE: [], LOC: [], DATE: [], TIME: [], EVENT: [], FAC: [] };
}

/**
 * Reads whatever a model returned as entities: keys in any case (`per`, `Per`), a single string
 * instead of an array, blanks and non-strings dropped, duplicates removed. Unknown keys are
 * ignored; anything that is not an object gives the empty set.
 */
export function normaliseEntities(value: unknown): NamedEntities {
  const result = emptyEntities();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return result;
  for (const [key, raw] of Object.entries(value as Record<string, unknown>)) {
    const entityKey = key.trim().toUpperCase() as EntityKey;
    if (!ENTITY_KEYS.includes(entityKey)) continue;
    const items = Array.isArray(raw) ? (raw as unknown[]) : [raw];
    result[entityKey] = dedupeStrings([...result[entityKey], ...items]);
  }
  return result;
}

/** Union per key, first spelling kept, compared case-insensitively with spaces collapsed. */
export function mergeEntities(...sets: NamedEntities[]): NamedEntities {
  const merged = emptyEntities();
  for (const key of ENTITY_KEYS) {
    merged[key] = dedupeStrings(sets.flatMap((set) => set[key]));
  }
  return merged;
}

/**
 * Trimmed, non-empty strings in first-seen order, without case- or spacing-variants. Numbers
 * (a year given as `2024`) become strings; other values are dropped.
 */
export function dedupeStrings(values: unknown[]): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const value of values) {
    const raw =
      typeof value === 'string' ? value : Number.isFinite(value) ? String(value) : undefined;
    if (raw === undefined) continue;
    const text = raw.replace(/\s+/g, ' ').trim();
    if (text === '') continue;
    const identity = text.toLocaleLowerCase();
    if (seen.has(identity)) continue;
    seen.add(identity);
    kept.push(text);
  }
  return kept;
}
