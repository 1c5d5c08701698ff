/**
 * Splits text into chunks of whole sentences under a word cap, in one pass over the characters.
 *
 * A sentence ends at `.`, `!` or `?` (possibly repeated, possibly followed by closing quotes or
 * brackets) followed by white space or the end of the text, and at a paragraph break (a blank
 * line), so text without punctuation (headings, tables, lists) still splits. Sentences are never
 * cut: a sentence longer than the cap is a chunk of its own. A chunk's text is the original
 * text from its first sentence to its last, line breaks included.
 */

/** Words per chunk when the caller does not say (the spec's default `chunk_size`). */
export const DEFAULT_CHUNK_SIZE = 10_000;

export interface Chunk {
  text: string;
  words: number;
}

const FULL_STOP = 0x2e;
const EXCLAMATION = 0x21;
const QUESTION = 0x3f;
const LINE_FEED = 0x0a;
/** Closing quotes and brackets that may follow a sentence end: " ' ) ] ” ’ » */
const CLOSERS = new Set([0x22, 0x27, 0x29, 0x5d, 0x201d, 0x2019, 0xbb]);

/** The characters JavaScript's `\s` matches. */
function isWhiteSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** Words are runs of non-white-space characters. */
export function countWords(text: string): number {
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i += 1) {
    if (isWhiteSpace(text.charCodeAt(i))) {
      inWord = false;
    } else if (!inWord) {
      inWord = true;
      words += 1;
    }
  }
  return words;
}

export function chunkBySentences(text: string, maxWords: number): Chunk[] {
  if (!Number.isInteger(maxWords) || maxWords < 1) {
    throw new RangeError(`chunk word cap must be a positive integer, got ${maxWords}`);
  }
  const chunks: Chunk[] = [];
  let chunkStart = -1;
  let chunkEnd = -1;
  let chunkWords = 0;

  const addSentence = (start: number, end: number, words: number) => {
    if (chunkWords > 0 && chunkWords + words > maxWords) {
      chunks.push({ text: text.slice(chunkStart, chunkEnd), words: chunkWords });
      chunkWords = 0;
    }
    if (chunkWords === 0) chunkStart = start;
    chunkEnd = end;
    chunkWords += words;
  };

  let sentenceStart = -1;
  let sentenceWords = 0;
  let lastText = -1;
  let inWord = false;
  let endPending = false;
  let lineBreaks = 0;

  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (isWhiteSpace(code)) {
      inWord = false;
      if (sentenceStart === -1) continue;
      if (endPending) {
        addSentence(sentenceStart, i, sentenceWords);
        sentenceStart = -1;
        sentenceWords = 0;
        endPending = false;
        continue;
      }
      if (code === LINE_FEED) {
        lineBreaks += 1;
        if (lineBreaks >= 2) {
          addSentence(sentenceStart, lastText + 1, sentenceWords);
          sentenceStart = -1;
          sentenceWords = 0;
        }
      }
      continue;
    }
    lineBreaks = 0;
    lastText = i;
    if (sentenceStart === -1) sentenceStart = i;
    if (!inWord) {
      inWord = true;
      sentenceWords += 1;
    }
    if (code === FULL_STOP || code === EXCLAMATION || code === QUESTION) {
      endPending = true;
    } else if (!(endPending && CLOSERS.has(code))) {
      endPending = false;
    }
  }
  if (sentenceStart !== -1) addSentence(sentenceStart, lastText + 1, sentenceWords);
  if (chunkWords > 0) chunks.push({ text: text.slice(chunkStart, chunkEnd), words: chunkWords });
  return chunks;
}
