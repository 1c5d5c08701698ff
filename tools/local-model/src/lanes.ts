/**
 * Two lanes on the model's one context, each its own sequence: `chat` (`/v1`) for answers a
 * person waits for, `background` (`/background/v1`) for work nobody watches token by token (the
 * summarizer's summaries). Both are evaluated in the same batches, so a chat does not wait for
 * a summary to end; what keeps it quick is how a batch is filled (`lanesBatch`): the chat's
 * tokens first, and at most BACKGROUND_BATCH tokens of the background's. On one CPU thread a
 * batch is not interrupted, so a summary's long prompt, evaluated 512 tokens at a time, would
 * hold a chat's first token back by a whole batch; in small batches it holds it back by little.
 */

export type Lane = 'chat' | 'background';
export const LANES: readonly Lane[] = ['chat', 'background'];

/** node-llama-cpp's evaluation priority (1 low to 5 high), which the batch strategy reads. */
export const LANE_PRIORITY = { chat: 5, background: 1 } as const satisfies Record<Lane, number>;

/** Tokens of the background lane one batch takes at most. */
export const BACKGROUND_BATCH = 32;

interface BatchItem {
  readonly tokens: readonly unknown[];
  readonly evaluationPriority: number;
}

/**
 * node-llama-cpp's custom prioritization strategy: the items to evaluate in the next batch of
 * `size` tokens and how many tokens of each. Chat items take what they need; background items
 * share what is left, capped at BACKGROUND_BATCH.
 */
export function lanesBatch<Item extends BatchItem>({
  items,
  size,
}: {
  items: readonly Item[];
  size: number;
}): Array<{ item: Item; processAmount: number }> {
  let left = size;
  const batch: Array<{ item: Item; processAmount: number }> = [];
  const ordered = [...items].sort((a, b) => b.evaluationPriority - a.evaluationPriority);
  for (const item of ordered) {
    const cap = item.evaluationPriority >= LANE_PRIORITY.chat ? left : BACKGROUND_BATCH;
    const processAmount = Math.min(item.tokens.length, left, cap);
    if (processAmount <= 0) continue;
    batch.push({ item, processAmount });
    left -= processAmount;
  }
  return batch;
}
