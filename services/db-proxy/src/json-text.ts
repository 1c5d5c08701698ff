/**
 * JSON text → value, keeping integers that a JavaScript number cannot hold exactly: they come
 * back as strings, as BigInt values do everywhere else (the seed's normalisation). JSON.parse
 * alone would silently round 12345678901234567890 to 12345678901234567000.
 */

/** Sixteen digits in a row are needed before an integer can be unsafe (2^53 has 16). */
const LONG_DIGITS = /\d{16}/;
const INTEGER = /^-?\d+$/;
const NUMBER_PART = /[0-9.eE+-]/;

export function parseJson(text: string): unknown {
  return JSON.parse(LONG_DIGITS.test(text) ? quoteUnsafeIntegers(text) : text);
}

/** Wraps unsafe integer literals (outside strings) in quotes. */
function quoteUnsafeIntegers(text: string): string {
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"') {
      i += 1;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i += 1;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      let end = i + 1;
      while (end < text.length && NUMBER_PART.test(text[end] as string)) end += 1;
      const literal = text.slice(i, end);
      if (INTEGER.test(literal) && !Number.isSafeInteger(Number(literal))) {
        out += `${text.slice(copied, i)}"${literal}"`;
        copied = end;
      }
      i = end;
    } else {
      i += 1;
    }
  }
  return out + text.slice(copied);
}
