/** Activity log query and response schemas. */
import { z } from 'zod';
import { toActivityDocument, type ActivityEntry, type ActivityQuery } from '@pelita/kit';
import type { FormatTimestamp } from '../timestamps';
import { Paging, Timestamp, pageOf } from './common';

export const ActivityQuerySchema = Paging.extend({
  user_id: z.string().max(64).optional(),
  username: z.string().max(64).optional(),
  action: z.string().max(200).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
});

export const ActivityEntryResponse = z.object({
  user_id: z.string().nullable(),
  username: z.string().nullable(),
  action: z.string(),
  method: z.string(),
  path: z.string(),
  status_code: z.number().int(),
  ip: z.string(),
  user_agent: z.string(),
  timestamp: Timestamp,
  changes: z
    .array(
      z.object({
        field: z.string(),
        before: z.unknown().describe('null when the resource or field did not exist'),
        after: z.unknown().describe('null when it no longer exists'),
      }),
    )
    .optional()
    .describe(
      'What the action changed (field, before, after); secrets are `[hidden]`. Absent for actions that record none (logins, refusals) and for entries written before this field existed',
    ),
});
export const ActivityListResponse = pageOf(ActivityEntryResponse);

/** An entry as stored in the log's index, its time in the service's timestamp format. */
export const toActivityResponse = (
  entry: ActivityEntry,
  time: FormatTimestamp,
): z.infer<typeof ActivityEntryResponse> => ({
  ...toActivityDocument(entry),
  timestamp: time(new Date(entry.timestamp)),
});

export const toActivityQuery = (query: z.infer<typeof ActivityQuerySchema>): ActivityQuery => ({
  userId: query.user_id,
  username: query.username,
  action: query.action,
  from: query.from ? new Date(query.from) : undefined,
  to: query.to ? new Date(query.to) : undefined,
  page: query.page,
  limit: query.limit,
});
