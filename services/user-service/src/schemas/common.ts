/** Pieces shared by the resource schemas. */
import { emailAddress, storedText } from '@pelita/kit';
import { z } from 'zod';
import type { FormatTimestamp } from '../timestamps';

export const IntId = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });
export const Uuid = z.object({ id: z.uuid() });
// The kit's, as every list of every service takes and answers them.
export { pageOf, Paging } from '@pelita/kit';
/** Timestamps are strings in `APP_TIMEZONE` with their offset. */
export const Timestamp = z.string();
/** When a resource was made and last changed: the last fields of every resource's answer. */
export const Timestamps = { created_at: Timestamp, updated_at: Timestamp };
export const toTimestamps = (
  row: { createdAt: Date; updatedAt: Date },
  time: FormatTimestamp,
): { created_at: string; updated_at: string } => ({
  created_at: time(row.createdAt),
  updated_at: time(row.updatedAt),
});
export const Email = emailAddress()
  .max(254)
  // RFC 5321: at most 64 characters before the `@` (zod's format check does not limit it).
  .refine((value) => (value.split('@')[0] ?? '').length <= 64, 'local part longer than 64');
export const Password = z.string().min(8).max(256);
export const Username = z
  .string()
  .min(3)
  .max(64)
  .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, underscore and dash only');
export const Name = storedText().trim().min(1).max(100);
export const Label = storedText().max(200).default('');
