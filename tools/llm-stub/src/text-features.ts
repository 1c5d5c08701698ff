/**
 * What the stand-in "understands" of a text: deterministic, cheap stand-ins for a model's
 * summary, key points, topics and named entities, all derived from the words of the input.
 */

export const ENTITY_KEYS = ['PER', 'ORG', 'GPE', 'LOC', 'DATE', 'TIME', 'EVENT', 'FAC'] as const;
export type EntityKey = (typeof ENTITY_KEYS)[number];
export type EntitySets = Record<EntityKey, string[]>;

const SENTENCE_END = /(?<=[.!?]["')\]]*)\s+/;

function sentencesOf(text: string): string[] {
  return text
    .split(SENTENCE_END)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);
}

export function wordsOf(text: string): string[] {
  return text.split(/\s+/).filter((word) => word.length > 0);
}

/**
 * The leading sentences of `text` within `fraction` of its words; when the first sentence alone
 * is longer, its first words. Always strictly shorter than a text of two words or more.
 */
export function shrinkingSummary(text: string, fraction: number): string {
  const total = wordsOf(text).length;
  if (total === 0) return '';
  const budget = Math.max(1, Math.floor(total * fraction));
  const kept: string[] = [];
  let used = 0;
  for (const sentence of sentencesOf(text)) {
    const words = wordsOf(sentence).length;
    if (used + words > budget) break;
    kept.push(sentence);
    used += words;
  }
  if (kept.length > 0) return kept.join(' ');
  return wordsOf(text).slice(0, budget).join(' ');
}

/** Up to three sentences spread over the text (first, middle, last), each cut to 12 words. */
export function keyPointsOf(text: string): string[] {
  const sentences = sentencesOf(text);
  if (sentences.length === 0) return [];
  const picks = [...new Set([0, Math.floor((sentences.length - 1) / 2), sentences.length - 1])];
  return picks.map((index) =>
    wordsOf(sentences[index] ?? '')
      .slice(0, 12)
      .join(' '),
  );
}

const STOPWORDS = new Set(
  'about above after again against their there these those which while would could should where being other under until below because before between through during'.split(
    ' ',
  ),
);

/** The three most frequent words of five letters or more (ties alphabetical), lower case. */
export function topicsOf(text: string): string[] {
  const counts = new Map<string, number>();
  for (const match of text.toLowerCase().matchAll(/\p{L}{5,}/gu)) {
    const word = match[0];
    if (STOPWORDS.has(word)) continue;
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 3)
    .map(([word]) => word);
}

const MONTHS =
  'January|February|March|April|May|June|July|August|September|October|November|December';
const DATE_PATTERNS = [
  new RegExp(`\\b\\d{1,2} (?:${MONTHS}) \\d{4}\\b`, 'g'),
  new RegExp(`\\b(?:${MONTHS}) \\d{1,2}, \\d{4}\\b`, 'g'),
  /\b\d{4}-\d{2}-\d{2}\b/g,
];
const MONTH_ONLY = new RegExp(`^(?:${MONTHS})$`);
const TIME_PATTERN = /\b\d{1,2}:\d{2}(?:\s?[AP]M)?\b/g;
const CAPITALISED_RUN = /\b\p{Lu}[\p{L}'-]*(?:\s+\p{Lu}[\p{L}'-]*)*/gu;

const PLACES = new Set(
  'Indonesia Jakarta Surabaya Bandung Bali Medan Singapore Malaysia Japan Tokyo France Paris Germany Berlin London England Netherlands Amsterdam China Beijing India Australia Sydney Canada Brazil Egypt Kenya'.split(
    ' ',
  ),
);
const MULTIWORD_PLACES = ['United States', 'United Kingdom', 'New York', 'South Korea'];
const SUFFIXES: Array<[EntityKey, RegExp]> = [
  [
    'ORG',
    /\b(?:Inc|Corp|Corporation|Ltd|Company|Bank|University|Institute|Ministry|Agency|Foundation|Association|Council|Committee)$/,
  ],
  [
    'FAC',
    /\b(?:Airport|Bridge|Tower|Station|Stadium|Hospital|Harbour|Harbor|Museum|Palace|Temple)$/,
  ],
  ['EVENT', /\b(?:Summit|Festival|Conference|War|Olympics|Championship|Expo|Election|Cup)$/],
  ['LOC', /(?:\b(?:River|Lake|Mountains?|Sea|Ocean|Valley|Island|Strait|Bay)$|^Mount\b)/],
];
const NOT_A_NAME_START = new Set(
  'The A An In On At Of For And But Or If When While After Before This That These Those It He She They We You I Our Their His Her Its'.split(
    ' ',
  ),
);

/** Named entities by pattern and word lists: good enough to be checked, never a real NER. */
export function entitiesOf(text: string): EntitySets {
  const found: EntitySets = {
    PER: [],
    ORG: [],
    GPE: [],
    LOC: [],
    DATE: [],
    TIME: [],
    EVENT: [],
    FAC: [],
  };
  const add = (key: EntityKey, value: string) => {
    if (!found[key].includes(value)) found[key].push(value);
  };
  for (const pattern of DATE_PATTERNS) {
    for (const match of text.matchAll(pattern)) add('DATE', match[0]);
  }
  for (const match of text.matchAll(TIME_PATTERN)) add('TIME', match[0]);
  for (const match of text.matchAll(CAPITALISED_RUN)) {
    let run = match[0];
    const words = run.split(/\s+/);
    while (words.length > 0 && NOT_A_NAME_START.has(words[0] ?? '')) words.shift();
    if (words.length === 0) continue;
    run = words.join(' ');
    if (MONTH_ONLY.test(run)) continue;
    const kind = classify(run, words.length);
    if (kind) add(kind, run);
  }
  return found;
}

function classify(run: string, wordCount: number): EntityKey | undefined {
  if (PLACES.has(run) || MULTIWORD_PLACES.includes(run)) return 'GPE';
  for (const [key, pattern] of SUFFIXES) if (pattern.test(run)) return key;
  if (/^\p{Lu}{2,6}$/u.test(run) && run !== 'AM' && run !== 'PM') return 'ORG';
  if (wordCount >= 2 && wordCount <= 3) return 'PER';
  return undefined;
}

/** A rough token count for usage figures: word pieces and punctuation marks. */
export function tokenCount(text: string): number {
  let count = 0;
  for (const _ of text.matchAll(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)) count += 1;
  return count;
}
