/**
 * Settings of one workspace, kept as JSON on the workspace. Every key has a default, so a
 * workspace made before a key existed reads it with the default.
 */
import { z } from 'zod';

export const WorkspaceSettings = z.object({
  /** Chunks retrieval hands to the model per question. */
  top_k: z.number().int().min(1).max(50).default(5),
  /** `hybrid`: BM25 and k-NN vectors (when embeddings are configured); `bm25`: words only. */
  retrieval_mode: z.enum(['hybrid', 'bm25']).default('hybrid'),
  /** Earlier exchanges of a room sent with a question; unset: MAXIMUM_CHAT_PER_ROOM. */
  chat_history_count: z.number().int().min(0).max(50).optional(),
  /** Sampling temperature of chat answers. */
  temperature: z.number().min(0).max(2).default(0.7),
});
export type WorkspaceSettings = z.infer<typeof WorkspaceSettings>;

/** What is stored, completed with defaults; keys no longer known are dropped. */
export function parseWorkspaceSettings(stored: unknown): WorkspaceSettings {
  const parsed = WorkspaceSettings.safeParse(stored ?? {});
  return parsed.success ? parsed.data : WorkspaceSettings.parse({});
}
