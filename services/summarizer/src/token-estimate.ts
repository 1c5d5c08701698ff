/**
 * Token figures when the model server reports no usage: words times 1.4, the ratio the spec's
 * start-up probe uses.
 */
import { countWords } from './chunker';

export const TOKENS_PER_WORD = 1.4;

export function estimateTokensOfWords(words: number): number {
  return Math.ceil(words * TOKENS_PER_WORD);
}

export function estimateTokens(text: string): number {
  return estimateTokensOfWords(countWords(text));
}
