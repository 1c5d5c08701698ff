/**
 * How long one answer may be, from the text the call works on. A summary, a shorter summary or
 * an entity list is not longer than its text; a small model left with the whole context writes
 * on until the context ends (SmolLM2-135M did, call after call), and every token of that is
 * compute spent on an answer cut anyway. The allowance is room for the JSON's keys, lists and
 * entity names around a short text.
 */
import { estimateTokens } from './token-estimate';

export const ANSWER_ALLOWANCE_TOKENS = 256;

/** Characters of scripts written without spaces between words: a token or more each. */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/gu;

/**
 * `max_tokens` an answer about `text` needs at most: the allowance plus `ratio` times the text's
 * tokens (words × 1.4, plus one per character of an unspaced script); undefined when `ratio` is
 * 0 (no such cap).
 */
export function answerTokenBudget(text: string, ratio: number): number | undefined {
  if (ratio === 0) return undefined;
  const tokens = estimateTokens(text) + (text.match(UNSPACED)?.length ?? 0);
  return ANSWER_ALLOWANCE_TOKENS + Math.ceil(ratio * tokens);
}
