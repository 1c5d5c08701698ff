/**
 * Turns a model's answer into the JSON object it meant: reasoning blocks and code fences are
 * removed, the object is located in surrounding prose, and when strict parsing fails a lenient
 * parser repairs what models typically get wrong (a cut-off answer, trailing commas, unquoted
 * keys, single quotes, Python literals, comments, unescaped quotes and line breaks in strings).
 */

/** Reasoning blocks some models emit before the answer. */
const REASONING_BLOCK = /<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi;
const REASONING_CLOSE = /<\/(?:think|thinking|reasoning)>/gi;
const REASONING_OPEN = /<(?:think|thinking|reasoning)>/i;
const FENCE = /```[A-Za-z0-9_-]*[^\S\n]*\n?([\s\S]*?)(?:```|$)/;

export function stripReasoning(content: string): string {
  let text = content.replace(REASONING_BLOCK, '');
  // A closing tag without its opening one: the template put `<think>` in the prompt.
  let lastClose = -1;
  for (const match of text.matchAll(REASONING_CLOSE)) lastClose = match.index + match[0].length;
  if (lastClose !== -1) text = text.slice(lastClose);
  // An opening tag never closed: the answer was cut while reasoning; nothing after it counts.
  const open = REASONING_OPEN.exec(text);
  if (open) text = text.slice(0, open.index);
  return text.trim();
}

export function stripCodeFence(content: string): string {
  const fenced = FENCE.exec(content);
  return fenced ? (fenced[1] ?? '').trim() : content;
}

export type ParsedAnswer =
  { ok: true; value: Record<string, unknown>; repaired: boolean } | { ok: false; reason: string };

/** The JSON object in a model's answer, repaired when needed. */
export function parseModelJson(content: string): ParsedAnswer {
  const text = stripCodeFence(stripReasoning(content));
  const start = text.indexOf('{');
  if (start === -1) return { ok: false, reason: 'no JSON object in the answer' };
  const end = text.lastIndexOf('}');
  if (end > start) {
    try {
      const value: unknown = JSON.parse(text.slice(start, end + 1));
      if (isObject(value)) return { ok: true, value, repaired: false };
    } catch {
      // fall through to the repair
    }
  }
  const repaired = repairJson(text.slice(start));
  if (isObject(repaired)) return { ok: true, value: repaired, repaired: true };
  return { ok: false, reason: 'the answer is not a JSON object, even after repair' };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const MISSING = Symbol('missing');

/**
 * Lenient JSON: returns the value the text starts with, closing whatever a cut-off text left
 * open, or undefined when there is no value at all.
 */
export function repairJson(text: string): unknown {
  const value = new LenientParser(text).value();
  return value === MISSING ? undefined : value;
}

const WORDS: Record<string, unknown> = {
  true: true,
  false: false,
  null: null,
  True: true,
  False: false,
  None: null,
};
const BARE_KEY = /[\p{L}\p{N}_$-]/u;
const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/;
const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  '/': '/',
  '\\': '\\',
  '"': '"',
  "'": "'",
};

class LenientParser {
  private pos = 0;

  constructor(private readonly text: string) {}

  /** The value at the current position, or MISSING. */
  value(): unknown {
    this.skipBlank();
    const c = this.text[this.pos];
    if (c === undefined) return MISSING;
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"' || c === "'") return this.string();
    if (c === '-' || c === '.' || (c >= '0' && c <= '9')) return this.number();
    return this.bareWord();
  }

  private object(): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    this.items(() => {
      const key = this.key();
      if (key === undefined) {
        this.pos += 1; // a stray character: skip it
        return true;
      }
      this.skipBlank();
      if (this.text[this.pos] === ':') this.pos += 1;
      const item = this.value();
      if (item === MISSING) return false;
      result[key] = item;
      return true;
    });
    return result;
  }

  private array(): unknown[] {
    const result: unknown[] = [];
    this.items((c) => {
      if (c === ':') {
        this.pos += 1;
        return true;
      }
      const item = this.value();
      if (item === MISSING) return false;
      result.push(item);
      return true;
    });
    return result;
  }

  /**
   * Reads the items of the object or array opening at the current position with `item`, up to
   * its closing bracket (either kind: models mismatch them) or the end of the text, skipping
   * commas. `item` is called at each item's first character and answers false to stop.
   */
  private items(item: (c: string) => boolean): void {
    this.pos += 1;
    for (;;) {
      this.skipBlank();
      const c = this.text[this.pos];
      if (c === undefined) return;
      if (c === '}' || c === ']') {
        this.pos += 1;
        return;
      }
      if (c === ',') {
        this.pos += 1;
        continue;
      }
      if (!item(c)) return;
    }
  }

  private key(): string | undefined {
    const c = this.text[this.pos];
    if (c === '"' || c === "'") return this.string();
    const start = this.pos;
    while (this.pos < this.text.length && BARE_KEY.test(this.text[this.pos] ?? '')) this.pos += 1;
    return this.pos > start ? this.text.slice(start, this.pos) : undefined;
  }

  /**
   * A quoted string. A quote of the opening kind ends it only when what follows can follow a
   * value (`,`, `:`, `}`, `]` or the end); otherwise it is taken as a quote inside the text.
   */
  private string(): string {
    const quote = this.text[this.pos];
    this.pos += 1;
    let out = '';
    while (this.pos < this.text.length) {
      const c = this.text[this.pos] ?? '';
      if (c === '\\') {
        const next = this.text[this.pos + 1];
        if (next === undefined) {
          this.pos += 1;
          break;
        }
        if (next === 'u') {
          const hex = this.text.slice(this.pos + 2, this.pos + 6);
          if (/^[0-9a-fA-F]{4}$/.test(hex)) out += String.fromCharCode(parseInt(hex, 16));
          this.pos += 2 + hex.length;
          continue;
        }
        out += ESCAPES[next] ?? next;
        this.pos += 2;
        continue;
      }
      if (c === quote) {
        if (this.endsValue(this.pos + 1)) {
          this.pos += 1;
          return out;
        }
        out += c;
        this.pos += 1;
        continue;
      }
      out += c;
      this.pos += 1;
    }
    return out;
  }

  /** Whether a value may end before `from`: a delimiter follows, or a new line starts an entry. */
  private endsValue(from: number): boolean {
    let at = from;
    let newLine = false;
    while (at < this.text.length && /\s/.test(this.text[at] ?? '')) {
      if (this.text[at] === '\n') newLine = true;
      at += 1;
    }
    const next = this.text[at];
    if (next === undefined || next === ',' || next === ':' || next === '}' || next === ']') {
      return true;
    }
    // A missing comma between pretty-printed entries: `"a": "x"\n  "b": ...`
    return newLine && (next === '"' || next === "'");
  }

  private number(): unknown {
    const match = NUMBER.exec(this.text.slice(this.pos, this.pos + 64));
    if (!match) {
      this.pos += 1;
      return this.value();
    }
    this.pos += match[0].length;
    return Number(match[0]);
  }

  /** `true`, `None`, ... or an unquoted text value running to the next delimiter. */
  private bareWord(): unknown {
    const start = this.pos;
    while (this.pos < this.text.length && !/[,}\]\n]/.test(this.text[this.pos] ?? '')) {
      this.pos += 1;
    }
    const word = this.text.slice(start, this.pos).trim();
    if (word === '') return MISSING;
    return Object.hasOwn(WORDS, word) ? WORDS[word] : word;
  }

  /** White space and `//` or `/* *\/` comments. */
  private skipBlank(): void {
    for (;;) {
      while (this.pos < this.text.length && /\s/.test(this.text[this.pos] ?? '')) this.pos += 1;
      if (this.text.startsWith('//', this.pos)) {
        const end = this.text.indexOf('\n', this.pos);
        this.pos = end === -1 ? this.text.length : end + 1;
        continue;
      }
      if (this.text.startsWith('/*', this.pos)) {
        const end = this.text.indexOf('*/', this.pos + 2);
        this.pos = end === -1 ? this.text.length : end + 2;
        continue;
      }
      return;
    }
  }
}
