/** Shapes of a search and of the passages retrieval finds. */
import { storedText } from '@pelita/kit';
import { z } from 'zod';
import type { Hit } from './knowledge-index';

export const SearchBody = z.object({
  query: storedText().trim().min(1).max(2000),
  topic_ids: z.array(z.uuid()).max(50).optional(),
  k: z.number().int().min(1).max(50).optional(),
});
const Passage = z.object({
  type: z.string(),
  id: z.string(),
  title: z.string(),
  kind: z.string(),
  position: z.number().int(),
  text: z.string(),
  score: z.number(),
  matched_by: z.array(z.string()),
});
export const SearchResponse = z.object({ hits: z.array(Passage) });

/**
 * A passage as an anonymous widget visitor sees it under an answer: where it is from, not its
 * text (unless the widget's owner allows the text).
 */
export const toPassageTitle = (hit: Hit) => ({
  type: hit.resourceType,
  id: hit.resourceId,
  title: hit.title,
  kind: hit.kind,
  position: hit.position,
});

/** A passage retrieval found, as searches answer it and chats list it under an answer. */
export const toPassageResponse = (hit: Hit): z.infer<typeof Passage> => ({
  type: hit.resourceType,
  id: hit.resourceId,
  title: hit.title,
  kind: hit.kind,
  position: hit.position,
  text: hit.text,
  score: hit.score,
  matched_by: hit.matchedBy,
});
