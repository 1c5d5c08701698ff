/** Pieces shared by the resource schemas. */
import { storedText } from '@pelita/kit';
import { z } from 'zod';

export const IntId = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });
export const Uuid = z.object({ id: z.uuid() });
export const Paging = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
/** Timestamps are strings in `APP_TIMEZONE` with their offset. */
export const Timestamp = z.string();
export const Email = z
  .email()
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
