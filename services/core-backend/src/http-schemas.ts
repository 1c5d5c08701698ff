/** Pieces shared by the resource schemas. */
import { storedText } from '@pelita/kit';
import { z } from 'zod';

export const Paging = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type Paging = z.infer<typeof Paging>;

/** A page of results, the shape of every list. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
  });
}

export const WorkspaceParams = z.object({ workspaceId: z.uuid() });
export const Name = storedText().trim().min(1).max(200);
export const Description = storedText().max(2000);
/** ISO 8601 in UTC. */
export const Timestamp = z.string();
export const Deleted = z.object({ deleted: z.literal(true) });
/** When a stored item was made and last changed: the fields of every such response... */
export const Timestamps = { created_at: Timestamp, updated_at: Timestamp };
/** ...and their values, from the row's two dates. */
export const timestampsOf = (createdAt: Date, updatedAt: Date) => ({
  created_at: createdAt.toISOString(),
  updated_at: updatedAt.toISOString(),
});
