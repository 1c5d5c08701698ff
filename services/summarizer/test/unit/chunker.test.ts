import { chunkBySentences, countWords } from '../../src/chunker';

const sentence = (words: number, end = '.') =>
  `${Array.from({ length: words }, (_, i) => `w${i}`).join(' ')}${end}`;

describe('countWords', () => {
  it('counts runs of non-white-space, any white space between them', () => {
    expect(countWords('')).toBe(0);
    expect(countWords('  \n\t ')).toBe(0);
    expect(countWords(' one  two\nthree\u00a0four\u3000five ')).toBe(5);
  });
});

describe('chunkBySentences', () => {
  it('packs whole sentences while the chunk stays within the word cap', () => {
    const text = [sentence(4), sentence(4), sentence(4), sentence(4)].join(' ');
    const chunks = chunkBySentences(text, 10);
    expect(chunks.map((c) => c.words)).toEqual([8, 8]);
    expect(chunks[0]?.text).toBe(`${sentence(4)} ${sentence(4)}`);
  });

  it('never cuts a sentence: a sentence over the cap is a chunk of its own', () => {
    const text = `${sentence(3)} ${sentence(25)} ${sentence(3)}`;
    const chunks = chunkBySentences(text, 10);
    expect(chunks.map((c) => c.text)).toEqual([sentence(3), sentence(25), sentence(3)]);
    expect(chunks.map((c) => c.words)).toEqual([3, 25, 3]);
  });

  it('ends sentences at ., ! and ? followed by white space, closing quotes and brackets included', () => {
    const text = 'He asked "why?" Then left! (It was late.) Done... Yes';
    const chunks = chunkBySentences(text, 1);
    expect(chunks.map((c) => c.text)).toEqual([
      'He asked "why?"',
      'Then left!',
      '(It was late.)',
      'Done...',
      'Yes',
    ]);
  });

  it('does not end a sentence inside numbers, versions or addresses', () => {
    const text = 'Pi is 3.14 and v1.2.3 is at example.com today. Next one.';
    expect(chunkBySentences(text, 9).map((c) => c.text)).toEqual([
      'Pi is 3.14 and v1.2.3 is at example.com today.',
      'Next one.',
    ]);
  });

  it('treats a blank line as a sentence end, so text without punctuation still splits', () => {
    const text = 'Heading one\n\nrow a b c\n  \nrow d e f\nstill row d';
    expect(chunkBySentences(text, 4).map((c) => c.text)).toEqual([
      'Heading one',
      'row a b c',
      'row d e f\nstill row d',
    ]);
  });

  it('keeps the original text between sentences of a chunk, line breaks included', () => {
    const text = 'One two.\nThree four.\r\n\r\nFive six.';
    expect(chunkBySentences(text, 100)).toEqual([{ text, words: 6 }]);
  });

  it('reproduces every word of the input exactly once, in order', () => {
    let text = '';
    for (let i = 0; i < 500; i += 1) {
      text += `${sentence(((i * 7) % 23) + 1, i % 3 ? '.' : '?')}${i % 5 ? ' ' : '\n'}`;
    }
    const chunks = chunkBySentences(text, 37);
    expect(chunks.flatMap((c) => c.text.split(/\s+/))).toEqual(text.trim().split(/\s+/));
    for (const chunk of chunks) {
      expect(chunk.words).toBe(countWords(chunk.text));
      if (chunk.words > 37) expect(chunk.text).not.toMatch(/[.!?]\s/);
    }
  });

  it('gives no chunk for an empty text and rejects a cap below one', () => {
    expect(chunkBySentences(' \n ', 10)).toEqual([]);
    expect(() => chunkBySentences('a.', 0)).toThrow(RangeError);
  });
});
