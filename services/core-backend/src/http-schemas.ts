/** Pieces shared by the resource schemas. */
import { storedText } from '@pelita/kit';
import { z } from 'zod';

// The kit's, as every list of every service takes and answers them.
export { Deleted, pageOf, Paging } from '@pelita/kit';

export const WorkspaceParams = z.object({ workspaceId: z.uuid() });
export const Name = storedText().trim().min(1).max(200);
export const Description = storedText().max(2000);
/** ISO 8601 in UTC. */
export const Timestamp = z.string();
/** When a stored item was made and last changed: the fields of every such response. */
export const Timestamps = { created_at: Timestamp, updated_at: Timestamp };
