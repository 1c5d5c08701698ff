/**
 * Two lanes, each its own llama context (one CPU thread each): `chat` (`/v1`) for answers a
 * person waits for, `background` (`/background/v1`) for work nobody watches token by token (the
 * summarizer's summaries). A context evaluates one batch at a time and a batch is not
 * interrupted, so on one context a chat's first token waits for the summary's batches (512
 * prompt tokens each, seconds on one thread); on a context of its own it does not wait at all —
 * the two lanes share the machine's cores instead. (Two sequences of one context with a batch
 * strategy favouring the chat did not do it: node-llama-cpp hands the strategy every item at the
 * same priority, whatever the prompt asked.)
 */

export type Lane = 'chat' | 'background';
export const LANES: readonly Lane[] = ['chat', 'background'];
