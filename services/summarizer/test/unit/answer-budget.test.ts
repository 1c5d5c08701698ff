import { ANSWER_ALLOWANCE_TOKENS, answerTokenBudget } from '../../src/answer-budget';

describe('answerTokenBudget', () => {
  const words = (count: number) => Array.from({ length: count }, () => 'harbour').join(' ');

  it('is the allowance plus the text: 100 words are 140 tokens', () => {
    expect(answerTokenBudget(words(100), 1)).toBe(ANSWER_ALLOWANCE_TOKENS + 140);
  });

  it('scales the text part with the ratio', () => {
    expect(answerTokenBudget(words(100), 0.5)).toBe(ANSWER_ALLOWANCE_TOKENS + 70);
    expect(answerTokenBudget(words(100), 2)).toBe(ANSWER_ALLOWANCE_TOKENS + 280);
  });

  it('counts each character of a script written without spaces', () => {
    // One "word" to the whitespace count (2 tokens), and fourteen characters of Chinese.
    expect(answerTokenBudget('三宝垄港口现代化计划年度报告', 1)).toBe(
      ANSWER_ALLOWANCE_TOKENS + 2 + 14,
    );
  });

  it('is no cap with a ratio of 0', () => {
    expect(answerTokenBudget(words(100), 0)).toBeUndefined();
  });
});
