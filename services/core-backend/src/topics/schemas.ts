/** Shapes of topics and the documents in them. */
import { z } from 'zod';
import { Description, Name, pageOf, Timestamp } from '../http-schemas';
import { Made, responseOf } from '../row-schemas';

export const TopicParams = z.object({ workspaceId: z.uuid(), topicId: z.uuid() });
export const TopicDocumentParams = TopicParams.extend({ documentId: z.uuid() });
export const TopicBody = z.object({ name: Name, description: Description.default('') });
export const TopicPatch = z.object({ name: Name, description: Description }).partial();
export const TopicDocumentsBody = z.object({ document_ids: z.array(z.uuid()).min(1).max(500) });
export const TopicResponse = z.object({
  id: z.string(),
  workspace_id: z.string(),
  name: z.string(),
  description: z.string(),
  document_count: z.number().int(),
  ...Made,
});
export const TopicList = pageOf(TopicResponse);
export const TopicDocumentList = pageOf(
  z.object({ id: z.string(), name: z.string(), state: z.string(), added_at: Timestamp }),
);
export const toTopicResponse = responseOf(TopicResponse);
