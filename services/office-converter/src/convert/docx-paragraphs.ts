/**
 * Paragraph texts of a WordprocessingML `word/document.xml`, read in one pass over its tags.
 * The pass is linear in the document whatever its shape (a lazy regex from each `<w:p` to the
 * next `</w:p>` was quadratic: 80 kB of unclosed paragraphs took 0.8 s, a few MB took hours),
 * keeps at most `maxChars` characters, and pauses every `TAGS_PER_STEP` tags so that its caller
 * can yield to the event loop and enforce a time limit.
 */

export interface ParagraphScan {
  paragraphs: string[];
  /** The document had more text than `maxChars`: the last paragraph kept is cut. */
  truncated: boolean;
}

/** Tags read between two pauses of `scanParagraphs`. */
export const TAGS_PER_STEP = 20_000;

// A tag's name, after `<` and an optional `/`: stops at white space, `/` or `>`.
const TAG_NAME = /\/?([^\s/>]*)/y;

/**
 * Yields (nothing) every `TAGS_PER_STEP` tags; returns the paragraphs. Text counts inside
 * `<w:t>` within a `<w:p>`; `<w:tab/>` is a tab and `<w:br/>` a line break; a paragraph with
 * only white space is skipped; text outside paragraphs is ignored.
 */
export function* scanParagraphs(xml: string, maxChars: number): Generator<void, ParagraphScan> {
  const paragraphs: string[] = [];
  let kept = 0;
  // The parts of the paragraph being read, and their length; undefined outside a paragraph.
  let parts: string[] | undefined;
  let partsLength = 0;
  let inText = false;
  let tags = 0;

  const add = (part: string): boolean => {
    parts!.push(part);
    partsLength += part.length;
    return kept + partsLength <= maxChars;
  };
  const endParagraph = (): void => {
    const text = parts!.join('');
    parts = undefined;
    partsLength = 0;
    inText = false;
    if (text.trim() === '') return;
    const room = maxChars - kept;
    paragraphs.push(text.length > room ? text.slice(0, room) : text);
    kept += Math.min(text.length, room);
  };

  for (let at = 0; ;) {
    const open = xml.indexOf('<', at);
    if (open === -1) break;
    if (inText && open > at && !add(decodeXml(xml.slice(at, open)))) {
      endParagraph();
      return { paragraphs, truncated: true };
    }
    const close = xml.indexOf('>', open + 1);
    if (close === -1) break;
    at = close + 1;
    if (++tags % TAGS_PER_STEP === 0) yield;

    TAG_NAME.lastIndex = open + 1;
    const name = TAG_NAME.exec(xml)?.[1];
    const closing = xml[open + 1] === '/';
    const selfClosing = xml[close - 1] === '/';
    if (name === 'w:p') {
      if (closing) {
        if (parts) endParagraph();
      } else if (!selfClosing) {
        // A paragraph nested in another (a text box) continues the outer one's text.
        parts ??= [];
      }
    } else if (name === 'w:t' && parts) {
      inText = !closing && !selfClosing;
    } else if (parts && !closing && (name === 'w:tab' || name === 'w:br')) {
      // Only the bare forms: `<w:tab w:val=… w:pos=…/>` in a paragraph's properties is a tab stop.
      const bare = name === 'w:tab' ? '<w:tab/>' : '<w:br/>';
      if (xml.startsWith(bare, open) && !add(name === 'w:tab' ? '\t' : '\n')) {
        endParagraph();
        return { paragraphs, truncated: true };
      }
    }
  }
  return { paragraphs, truncated: false };
}

/** `scanParagraphs` run to its end at once, for callers with no time limit to keep. */
export function docxParagraphs(documentXml: string, maxChars = Infinity): string[] {
  const scan = scanParagraphs(documentXml, maxChars);
  for (;;) {
    const step = scan.next();
    if (step.done) return step.value.paragraphs;
  }
}

const NAMED_ENTITIES: Record<string, string> = {
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  amp: '&',
};

/** The five XML entities and character references, in one pass (`&amp;lt;` stays `&lt;`). */
function decodeXml(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(
    /&(?:#(\d{1,7})|#x([0-9a-fA-F]{1,6})|(lt|gt|quot|apos|amp));/g,
    (_entity, decimal?: string, hex?: string, named?: string) => {
      if (named !== undefined) return NAMED_ENTITIES[named]!;
      const code = decimal !== undefined ? Number(decimal) : parseInt(hex!, 16);
      // A reference outside Unicode is the document's mistake: a '?' rather than a failure.
      return code <= 0x10ffff ? String.fromCodePoint(code) : '?';
    },
  );
}
