// @ts-check
/**
 * Markdown in a model's answer, built as DOM nodes: headings, paragraphs, lists (nested by
 * indentation), block quotes, fenced code, tables, rules; inline code, strong, emphasis,
 * strike-through and links (an image is shown as a link to it). The answer is never parsed as
 * HTML: every character of it ends up in a text node, so markup a model writes
 * (`<img onerror=…>`) shows as the characters it is. A link keeps only an http or https target;
 * any other (`javascript:`, `data:`, relative) stays text.
 *
 * Written for text that is still arriving: an unclosed fence shows as code so far, an unclosed
 * `**` as the characters until its partner comes.
 */

/** Answer headings sit under the page's own (h1 page, h2 panel): `#` becomes h3. */
const HEADING_OFFSET = 2;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const FENCE_END = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;
const HEADING = /^ {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?/;
const ITEM = /^( *)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;
/** The line under a table's header: `| --- | :-: |`. */
const TABLE_RULE = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
/** `[text](address "title")`; the address may hold balanced parentheses (`…/Lamp_(light)`). */
const LINK = /^\[([^\]]*)\]\(\s*<?((?:[^\s<>()]|\([^\s<>()]*\))*)>?(?:\s+"[^"]*")?\s*\)/;

/**
 * @param {string} markdown
 * @returns {DocumentFragment}
 */
export function renderMarkdown(markdown) {
  const fragment = document.createDocumentFragment();
  fragment.append(...blocks(markdown.replace(/\r\n?/g, '\n').split('\n')));
  return fragment;
}

/**
 * @param {string} tag
 * @param {(Node | string)[]} children
 */
function element(tag, children = []) {
  const node = document.createElement(tag);
  node.append(...children);
  return node;
}

/** Whether `line` ends a fence opened with `marker`: the same character, as many or more. */
function closesFence(/** @type {string} */ line, /** @type {string} */ marker) {
  const end = FENCE_END.exec(line)?.[1];
  return end !== undefined && end[0] === marker[0] && end.length >= marker.length;
}

/** Whether a line starts a block other than a paragraph (and so ends one). */
function startsBlock(/** @type {string} */ line) {
  return (
    FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || ITEM.test(line)
  );
}

/**
 * @param {string[]} lines
 * @returns {Node[]}
 */
function blocks(lines) {
  /** @type {Node[]} */
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (line.trim() === '') {
      i += 1;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1] ?? '```';
      const body = [];
      i += 1;
      while (i < lines.length && !closesFence(lines[i] ?? '', marker)) {
        body.push(lines[i] ?? '');
        i += 1;
      }
      i += 1; // the closing fence (or the end of an answer still arriving)
      const code = document.createElement('code');
      code.textContent = body.join('\n');
      out.push(element('pre', [code]));
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = Math.min((heading[1] ?? '#').length + HEADING_OFFSET, 6);
      out.push(element(`h${level}`, inline(heading[2] ?? '')));
      i += 1;
      continue;
    }
    if (RULE.test(line)) {
      out.push(document.createElement('hr'));
      i += 1;
      continue;
    }
    if (QUOTE.test(line)) {
      const quoted = [];
      while (i < lines.length && QUOTE.test(lines[i] ?? '')) {
        quoted.push((lines[i] ?? '').replace(QUOTE, ''));
        i += 1;
      }
      out.push(element('blockquote', blocks(quoted)));
      continue;
    }
    if (ITEM.test(line)) {
      i = list(lines, i, out);
      continue;
    }
    if (line.includes('|') && TABLE_RULE.test(lines[i + 1] ?? '')) {
      i = table(lines, i, out);
      continue;
    }
    const paragraph = [];
    while (i < lines.length && (lines[i] ?? '').trim() !== '' && !startsBlock(lines[i] ?? '')) {
      paragraph.push((lines[i] ?? '').trim());
      i += 1;
    }
    // A single line break in an answer is meant as one (as chat pages show it).
    /** @type {(Node | string)[]} */
    const children = [];
    paragraph.forEach((text, index) => {
      if (index > 0) children.push(document.createElement('br'));
      children.push(...inline(text));
    });
    out.push(element('p', children));
  }
  return out;
}

/**
 * A list starting at `lines[start]`: items of the same kind at its indentation; lines indented
 * deeper (after a blank line too) belong to the item above, nested lists included.
 * @param {string[]} lines
 * @param {number} start
 * @param {Node[]} out
 * @returns {number} the index of the first line after the list
 */
function list(lines, start, out) {
  const first = /** @type {RegExpExecArray} */ (ITEM.exec(lines[start] ?? ''));
  const indent = (first[1] ?? '').length;
  const ordered = /\d/.test(first[2] ?? '');
  /** An item of this list: at its indentation, numbered when it is. */
  const ofList = (/** @type {RegExpExecArray | null} */ item) =>
    item !== null && (item[1] ?? '').length === indent && /\d/.test(item[2] ?? '') === ordered;
  const node = document.createElement(ordered ? 'ol' : 'ul');
  const number = Number.parseInt(first[2] ?? '1', 10);
  if (ordered && number !== 1) node.setAttribute('start', String(number));
  /** @type {string[][]} */
  const items = [];
  let i = start;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    const item = ITEM.exec(line);
    if (item && ofList(item)) {
      items.push([item[3] ?? '']);
      i += 1;
      continue;
    }
    const current = items[items.length - 1] ?? [];
    const depth = line.length - line.trimStart().length;
    if (line.trim() === '') {
      // A blank line ends the list unless the next line goes on inside it: deeper, or its next item.
      const next = lines[i + 1] ?? '';
      const sameList = ofList(ITEM.exec(next));
      if (next.trim() === '' || (!sameList && next.length - next.trimStart().length <= indent)) {
        break;
      }
      if (!sameList) current.push('');
    } else if (depth > indent) {
      current.push(line.slice(Math.min(indent + 2, depth)));
    } else if (!startsBlock(line)) {
      current.push(line); // a line that starts nothing goes on with the item's text
    } else {
      break;
    }
    i += 1;
  }
  for (const itemLines of items) {
    const content = blocks(itemLines);
    // A one-paragraph item shows its text without the paragraph's margins.
    const lead = content[0];
    if (lead instanceof HTMLParagraphElement) content.splice(0, 1, ...lead.childNodes);
    node.append(element('li', content));
  }
  out.push(node);
  return i;
}

/**
 * A table (GitHub's): the header row, the rule under it, then rows while lines hold a `|`.
 * @param {string[]} lines
 * @param {number} start
 * @param {Node[]} out
 * @returns {number} the index of the first line after the table
 */
function table(lines, start, out) {
  /** @param {string} line @param {string} tag */
  const row = (line, tag) =>
    element(
      'tr',
      line
        .trim()
        .replace(/^\|/, '')
        .replace(/(?<!\\)\|$/, '')
        .split(/(?<!\\)\|/)
        .map((cell) => element(tag, inline(cell.trim()))),
    );
  const node = element('table', [element('thead', [row(lines[start] ?? '', 'th')])]);
  const rows = [];
  let i = start + 2;
  while (i < lines.length && (lines[i] ?? '').includes('|')) {
    rows.push(row(lines[i] ?? '', 'td'));
    i += 1;
  }
  if (rows.length > 0) node.append(element('tbody', rows));
  out.push(node);
  return i;
}

/**
 * Inline markdown in one line of text, as nodes.
 * @param {string} text
 * @param {boolean} [links] false inside a link's own text: a link holds no other link
 * @returns {(Node | string)[]}
 */
function inline(text, links = true) {
  /** @type {(Node | string)[]} */
  const out = [];
  let plain = '';
  /** Per marker, a position from which no closer was found: later openers need not look. */
  /** @type {Map<string, number>} */
  const noCloser = new Map();
  const flush = () => {
    if (plain) out.push(plain);
    plain = '';
  };
  let i = 0;
  while (i < text.length) {
    const char = text[i] ?? '';
    const rest = text.slice(i);

    if (char === '\\' && /^[!-/:-@[-`{-~]$/.test(text[i + 1] ?? '')) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (char === '`') {
      const run = /^`+/.exec(rest)?.[0] ?? '`';
      const end = text.indexOf(run, i + run.length);
      if (end > i) {
        flush();
        const code = document.createElement('code');
        code.textContent = text.slice(i + run.length, end).replace(/^ (.*) $/, '$1');
        out.push(code);
        i = end + run.length;
        continue;
      }
      plain += run;
      i += run.length;
      continue;
    }
    // An image becomes a link to it: nothing is loaded from an address a model wrote.
    const image = char === '!' && text[i + 1] === '[';
    if ((char === '[' || image) && links) {
      const link = LINK.exec(image ? rest.slice(1) : rest);
      if (link) {
        const length = link[0].length + (image ? 1 : 0);
        const href = webAddress(link[2] ?? '');
        if (href) {
          flush();
          out.push(anchor(href, inline(link[1] || href, false)));
        } else {
          plain += text.slice(i, i + length); // not a web address: as written, nothing to follow
        }
        i += length;
        continue;
      }
    }
    if (char === '<' && links) {
      const auto = /^<(https?:\/\/[^\s<>]+)>/i.exec(rest);
      const href = auto && webAddress(auto[1] ?? '');
      if (auto && href) {
        flush();
        out.push(anchor(href, [auto[1] ?? '']));
        i += auto[0].length;
        continue;
      }
    }
    if ((char === 'h' || char === 'H') && links && /[\s(]|^$/.test(text[i - 1] ?? '')) {
      // A bare address, without the punctuation that usually ends the sentence around it.
      const bare = /^https?:\/\/[^\s<>]*[^\s<>.,;:!?'")\]]/i.exec(rest);
      const href = bare && webAddress(bare[0]);
      if (bare && href) {
        flush();
        out.push(anchor(href, [bare[0]]));
        i += bare[0].length;
        continue;
      }
    }
    if (char === '*' || char === '_' || char === '~') {
      const span = delimited(text, i, noCloser);
      if (span) {
        flush();
        out.push(element(span.tag, inline(span.inner, links)));
        i = span.end;
        continue;
      }
      // An unmatched run stays as written, in one piece (`**` is not two emphasis starts).
      const run = /^([*_~])\1*/.exec(rest)?.[0] ?? char;
      plain += run;
      i += run.length;
      continue;
    }
    plain += char;
    i += 1;
  }
  flush();
  return out;
}

/**
 * A `**strong**`, `*em*` (or with `_`) or `~~del~~` span starting at `text[start]`: the opener
 * is followed by a non-space, the closer preceded by one; `_` does not open or close inside a
 * word (snake_case stays as written).
 * @param {string} text
 * @param {number} start
 * @param {Map<string, number>} noCloser per marker, where a search for a closer already failed
 * @returns {{ tag: string, inner: string, end: number } | undefined}
 */
function delimited(text, start, noCloser) {
  const char = text[start] ?? '';
  const run = /^([*_~])\1*/.exec(text.slice(start))?.[0] ?? '';
  const size = char === '~' ? 2 : Math.min(run.length, 2);
  if (char === '~' && run.length !== 2) return undefined;
  const marker = char.repeat(size);
  const word = /[\p{L}\p{N}]/u;
  if (char === '_' && word.test(text[start - 1] ?? '')) return undefined;
  const from = start + size;
  if (/\s/.test(text[from] ?? ' ')) return undefined;
  if (from + 1 >= (noCloser.get(marker) ?? Infinity)) return undefined;
  let at = text.indexOf(marker, from + 1);
  while (at > 0) {
    const closes =
      !/\s/.test(text[at - 1] ?? ' ') &&
      text[at + size] !== char &&
      !(char === '_' && word.test(text[at + size] ?? ''));
    if (closes) {
      return {
        tag: char === '~' ? 'del' : size === 2 ? 'strong' : 'em',
        inner: text.slice(from, at),
        end: at + size,
      };
    }
    at = text.indexOf(marker, at + 1);
  }
  noCloser.set(marker, from + 1);
  return undefined;
}

/** `address` as an absolute http or https URL, or undefined for anything else. */
function webAddress(/** @type {string} */ address) {
  try {
    const url = new URL(address);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A link out of the page: a new tab, so the conversation stays, and nothing told to the target.
 * @param {string} href
 * @param {(Node | string)[]} children
 */
function anchor(href, children) {
  const link = element('a', children);
  link.setAttribute('href', href);
  link.setAttribute('target', '_blank');
  link.setAttribute('rel', 'noopener noreferrer');
  return link;
}
