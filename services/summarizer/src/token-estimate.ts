/**
 * Token figures when the model server reports no usage: words times 1.4, the ratio the spec's
 * start-up probe uses.
 */
import { countWords } from './chunker';

export const TOKENS_PER_WORD = 1.4;

/** Share of the model's context one chunk may fill: the rest is the prompt's and the answer's. */
export const CHUNK_CONTEXT_SHARE = 0.6;

/** The most words a chunk may have for a model whose context holds `contextLength` tokens. */
function chunkWordsFitting(contextLength: number): number {
  return Math.max(1, Math.floor((contextLength * CHUNK_CONTEXT_SHARE) / TOKENS_PER_WORD));
}

/**
 * The chunk size a request gets: what it asked for, cut to what the model's context takes when
 * that is known (a longer chunk would be refused by the model server and be lost).
 */
export function chunkSizeFor(
  requested: number,
  contextLength: number | undefined,
): { chunkSize: number; cutFrom?: number } {
  if (contextLength === undefined) return { chunkSize: requested };
  const fitting = chunkWordsFitting(contextLength);
  return fitting < requested
    ? { chunkSize: fitting, cutFrom: requested }
    : { chunkSize: requested };
}

export function estimateTokensOfWords(words: number): number {
  return Math.ceil(words * TOKENS_PER_WORD);
}

export function estimateTokens(text: string): number {
  return estimateTokensOfWords(countWords(text));
}
