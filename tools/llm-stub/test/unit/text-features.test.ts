import {
  entitiesOf,
  keyPointsOf,
  shrinkingSummary,
  tokenCount,
  topicsOf,
  wordsOf,
} from '../../src/text-features';

describe('the stand-in text features', () => {
  it('summaries keep leading sentences within the word share, always fewer words', () => {
    const text =
      'One two three four five. Six seven eight nine ten. Eleven twelve thirteen fourteen.';
    expect(shrinkingSummary(text, 0.5)).toBe('One two three four five.');
    expect(shrinkingSummary('a b c d e f g h', 0.25)).toBe('a b');
    for (let words = 2; words < 60; words += 1) {
      const input = Array.from({ length: words }, (_, i) => `w${i}`).join(' ');
      expect(wordsOf(shrinkingSummary(input, 0.25)).length).toBeLessThan(words);
    }
    expect(shrinkingSummary('', 0.25)).toBe('');
  });

  it('key points are the first, middle and last sentences, cut to twelve words', () => {
    expect(keyPointsOf('A one. B two. C three. D four. E five.')).toEqual([
      'A one.',
      'C three.',
      'E five.',
    ]);
    expect(keyPointsOf('Only one sentence here.')).toEqual(['Only one sentence here.']);
  });

  it('topics are the most frequent long words', () => {
    expect(topicsOf('River river RIVER house house market. Market!')).toEqual([
      'river',
      'house',
      'market',
    ]);
  });

  it('finds entities by pattern and word list', () => {
    const found = entitiesOf(
      'On 17 August 1945 Budi Santoso flew from Soekarno Airport to Jakarta at 10:30 AM. ' +
        'The Pelita Foundation met UNESCO at the Jakarta Fair Festival near Mount Merapi in the United States.',
    );
    expect(found.DATE).toEqual(['17 August 1945']);
    expect(found.TIME).toEqual(['10:30 AM']);
    expect(found.PER).toContain('Budi Santoso');
    expect(found.FAC).toEqual(['Soekarno Airport']);
    expect(found.GPE).toEqual(['Jakarta', 'United States']);
    expect(found.ORG).toEqual(['Pelita Foundation', 'UNESCO']);
    expect(found.EVENT).toEqual(['Jakarta Fair Festival']);
    expect(found.LOC).toEqual(['Mount Merapi']);
  });

  it('counts word pieces and punctuation as tokens', () => {
    expect(tokenCount('{"a": [1, 2]}')).toBe(11);
  });
});
