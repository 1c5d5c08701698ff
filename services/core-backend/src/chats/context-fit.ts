/**
 * Prompts that fit the model's context. A model server refuses a prompt longer than its context
 * (vLLM: 400), and the platform runs small open models (2,048 to 8,192 tokens are common), so
 * where the context length is known a prompt may take three quarters of it, the rest kept for the
 * answer. What gives way is the least needed: a chat's oldest exchanges first, then its
 * lowest-ranked passages; a report's material from its end. Token counts are the kit's generous
 * estimate, so a prompt that fits here fits the server.
 */
import { estimatePromptTokens } from '@pelita/kit';
import type { ChatTurn } from './model-client';

/** Share of the context kept for the answer. */
const ANSWER_SHARE = 0.25;

/** The tokens a prompt may take of a context of `contextLength`. */
export function promptBudget(contextLength: number): number {
  return Math.floor(contextLength * (1 - ANSWER_SHARE));
}

/**
 * The turns `build` makes from as much of `earlier` and `passages` as fits `budget`: earlier
 * turns go oldest first (a question with its answer; a caller's system turns stay), then passages
 * from the last. With nothing left to drop, what remains (the question is never cut).
 */
export function fitTurns<P>(
  build: (earlier: ChatTurn[], passages: P[]) => ChatTurn[],
  earlier: ChatTurn[],
  passages: P[],
  budget: number,
): ChatTurn[] {
  let keptEarlier = earlier;
  let keptPassages = passages;
  let turns = build(keptEarlier, keptPassages);
  while (estimatePromptTokens(turns) > budget) {
    const shorter = withoutOldestExchange(keptEarlier);
    if (shorter) {
      keptEarlier = shorter;
    } else if (keptPassages.length > 0) {
      keptPassages = keptPassages.slice(0, -1);
    } else {
      break;
    }
    turns = build(keptEarlier, keptPassages);
  }
  return turns;
}

/** `turns` without its oldest question and answer (or lone turn) other than a system turn. */
function withoutOldestExchange(turns: ChatTurn[]): ChatTurn[] | undefined {
  const first = turns.findIndex((turn) => turn.role !== 'system');
  if (first < 0) return undefined;
  const count = turns[first]!.role === 'user' && turns[first + 1]?.role === 'assistant' ? 2 : 1;
  return [...turns.slice(0, first), ...turns.slice(first + count)];
}

/** The longest start of `text` (at most `maxCharacters`) whose prompt, `around` it, fits `budget`. */
export function fitText(
  text: string,
  maxCharacters: number,
  around: (text: string) => ChatTurn[],
  budget: number | undefined,
): string {
  const capped = text.slice(0, maxCharacters);
  if (budget === undefined || estimatePromptTokens(around(capped)) <= budget) return capped;
  // The estimate grows with the length: the longest start that fits, by bisection.
  let fits = 0;
  let over = capped.length;
  while (over - fits > 1) {
    const middle = Math.floor((fits + over) / 2);
    if (estimatePromptTokens(around(capped.slice(0, middle))) <= budget) fits = middle;
    else over = middle;
  }
  return capped.slice(0, fits);
}
