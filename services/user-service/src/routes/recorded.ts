/**
 * A write's part of its activity entry: the fields of the resource, as answered, that differ
 * before and after it (before null: created; after null: deleted).
 */
import { describeChanges, recordChanges } from '@pelita/kit';
import type { Response } from 'express';

type Answer = Record<string, unknown>;

/** Records what changed from `before` to `after` on this request's entry and gives `after` back. */
export function recorded<T extends Answer | null>(
  res: Response,
  before: Answer | null,
  after: T,
): T {
  recordChanges(res, describeChanges(before, after));
  return after;
}
