import { estimatePromptTokens } from '@pelita/kit';
import { fitText, fitTurns, promptBudget } from '../../src/chats/context-fit';
import type { ChatTurn } from '../../src/chats/model-client';

const words = (count: number, word: string) => Array.from({ length: count }, () => word).join(' ');

describe('fitTurns', () => {
  const earlier: ChatTurn[] = [
    { role: 'user', content: words(100, 'first') },
    { role: 'assistant', content: words(100, 'firstanswer') },
    { role: 'user', content: words(100, 'second') },
    { role: 'assistant', content: words(100, 'secondanswer') },
  ];
  const passages = ['best', 'good', 'weak'].map((rank) => words(100, rank));
  const build = (kept: ChatTurn[], used: string[]): ChatTurn[] => [
    ...kept,
    { role: 'user', content: `${used.join('\n')}\nQuestion: ${words(20, 'ask')}` },
  ];
  const sent = (turns: ChatTurn[]) => turns.map((turn) => turn.content).join(' ');

  it('sends everything when it fits', () => {
    const all = build(earlier, passages);
    expect(fitTurns(build, earlier, passages, estimatePromptTokens(all))).toEqual(all);
  });

  it('leaves out the oldest exchange, question and answer together, before any passage', () => {
    const withoutFirst = build(earlier.slice(2), passages);
    const turns = fitTurns(build, earlier, passages, estimatePromptTokens(withoutFirst));
    expect(turns).toEqual(withoutFirst);
    expect(sent(turns)).not.toContain('first');
    expect(sent(turns)).toContain('secondanswer');
  });

  it("keeps a caller's system turns while its exchanges give way", () => {
    const system: ChatTurn = { role: 'system', content: 'Answer in French.' };
    const withSystem = [system, ...earlier];
    const fitted = build([system, ...earlier.slice(2)], passages);
    expect(fitTurns(build, withSystem, passages, estimatePromptTokens(fitted))).toEqual(fitted);
    expect(fitTurns(build, withSystem, passages, 1)).toEqual(build([system], []));
  });

  it('then the lowest-ranked passages; the question stays whatever the budget', () => {
    const bestOnly = build([], passages.slice(0, 1));
    expect(fitTurns(build, earlier, passages, estimatePromptTokens(bestOnly))).toEqual(bestOnly);
    expect(fitTurns(build, earlier, passages, 1)).toEqual(build([], []));
  });
});

describe('fitText', () => {
  const around = (text: string): ChatTurn[] => [
    { role: 'system', content: 'Write a report.' },
    { role: 'user', content: `<document>\n${text}\n</document>` },
  ];
  const material = words(2000, 'heron');

  it('keeps the longest start that fits the budget, and no more than the character limit', () => {
    const budget = promptBudget(1024);
    const fitted = fitText(material, 100_000, around, budget);
    expect(material.startsWith(fitted)).toBe(true);
    expect(estimatePromptTokens(around(fitted))).toBeLessThanOrEqual(budget);
    expect(estimatePromptTokens(around(material.slice(0, fitted.length + 1)))).toBeGreaterThan(
      budget,
    );
    expect(fitText(material, 50, around, budget)).toBe(material.slice(0, 50));
  });

  it('cuts only at the character limit when the context is unknown', () => {
    expect(fitText(material, 100_000, around, undefined)).toBe(material);
    expect(fitText(material, 10, around, undefined)).toBe('heron hero');
  });
});

describe('promptBudget', () => {
  it('keeps a quarter of the context for the answer', () => {
    expect(promptBudget(2048)).toBe(1536);
  });
});
