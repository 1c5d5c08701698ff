/**
 * What an action changed, for its activity entry: each field whose value differs between before
 * and after, with both values. Secrets are masked by their field's name, at any depth — the log
 * is read by administrators and kept for long, and no service's credential may reach it.
 */
import type { Response } from 'express';

export interface ActivityChange {
  field: string;
  /** null when the field (or the whole resource) did not exist before. */
  before: unknown;
  /** null when the field (or the whole resource) no longer exists. */
  after: unknown;
}

declare module 'express-serve-static-core' {
  interface Locals {
    /** Set by a handler (`recordChanges`) for its request's activity entry. */
    activityChanges?: ActivityChange[];
  }
}

/** Stands for a secret's value; a change of a secret is still recorded as a change. */
export const MASKED_VALUE = '[hidden]';

const SECRET_FIELD =
  /pass(word|phrase)?|secret|token|api[-_]?key|private[-_]?key|hash|credential|authorization|cookie/i;
/** Bookkeeping that changes with every write and says nothing about the action. */
const NOISE = new Set(['updated_at', 'updatedAt']);

type Fields = Record<string, unknown>;

/**
 * The fields that differ between `before` and `after` (undefined or null: the resource did not
 * exist, or no longer does), in the order they appear.
 */
export function describeChanges(
  before: Fields | null | undefined,
  after: Fields | null | undefined,
): ActivityChange[] {
  const fields = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  const changes: ActivityChange[] = [];
  for (const field of fields) {
    if (NOISE.has(field)) continue;
    const was = before?.[field] ?? null;
    const is = after?.[field] ?? null;
    if (sameValue(was, is)) continue;
    changes.push({ field, before: masked(field, was), after: masked(field, is) });
  }
  return changes;
}

/** Adds changes to the activity entry of this request (the kit's recorder writes them). */
export function recordChanges(res: Response, changes: ActivityChange[]): void {
  if (changes.length === 0) return;
  res.locals.activityChanges = [...(res.locals.activityChanges ?? []), ...changes];
}

function masked(field: string, value: unknown): unknown {
  if (value === null) return null;
  if (SECRET_FIELD.test(field)) return MASKED_VALUE;
  if (Array.isArray(value)) return value.map((item) => masked('', item));
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Fields).map(([key, inner]) => [key, masked(key, inner)]),
    );
  }
  return value;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}
