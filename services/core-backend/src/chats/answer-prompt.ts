/**
 * The turns an answer is asked with. The system turn holds only the workspace's `persistent`
 * prompt; the passages go in the question's own turn as short numbered extracts, with an
 * instruction to quote. A small model (SmolLM2-135M in `make dev`, 2,048 tokens of context) reads
 * the turn it answers, and five whole passages of a page or more do not fit its context at all:
 * over one-page documents it answered none of 12 questions with the passages whole in the system
 * turn and 7 with extracts in the user turn (`make bench`, answer-quality).
 * `CHAT_PASSAGES_IN=system` keeps the earlier layout (instruction and whole passages in the
 * system turn), for a large model that does better with whole passages.
 */
import type { Settings } from '../config';
import type { Hit } from '../retrieval/knowledge-index';
import type { ChatTurn } from './model-client';
import type { Finding } from './source-lookups';

export type PassagesIn = Settings['CHAT_PASSAGES_IN'];

export interface AnswerPromptInput {
  /** The workspace's default `persistent` system prompt, if any. */
  persistent: string | undefined;
  question: string;
  passages: Hit[];
  findings: Finding[];
  /** The conversation so far (the room's last exchanges, or the caller's own turns). */
  earlier: ChatTurn[];
}

const SYSTEM_INSTRUCTION =
  'Answer the question from the context passages when they hold the answer, and say so when they do not. Do not make up facts.';
const USER_INSTRUCTION =
  'Answer the question by quoting the extract that holds the answer. If no extract holds it, say that you do not know.';

/** Sentences of a passage kept in its extract, and the characters an extract may take. */
const EXTRACT_SENTENCES = 2;
const EXTRACT_CHARS = 500;

export function answerTurns(input: AnswerPromptInput, passagesIn: PassagesIn): ChatTurn[] {
  return passagesIn === 'system' ? systemLayout(input) : userLayout(input);
}

function userLayout({ persistent, question, passages, findings, earlier }: AnswerPromptInput) {
  const extracts = passages.map(
    (hit, i) => `[${i + 1}] ${hit.title}: ${extractOf(hit.text, question)}`,
  );
  const found = findings.map((finding) => finding.text);
  const material = [
    extracts.length > 0 ? `Extracts:\n${extracts.join('\n')}` : '',
    found.length > 0 ? `From the room's databases and APIs:\n\n${found.join('\n\n')}` : '',
  ].filter(Boolean);
  const asked =
    material.length > 0
      ? `${material.join('\n\n')}\n\n${USER_INSTRUCTION}\n\nQuestion: ${question}`
      : question;
  return [
    ...(persistent ? [{ role: 'system' as const, content: persistent }] : []),
    ...earlier,
    { role: 'user' as const, content: asked },
  ];
}

function systemLayout({ persistent, question, passages, findings, earlier }: AnswerPromptInput) {
  const context = passages.map((hit, i) => `[${i + 1}] ${hit.title}\n${hit.text}`).join('\n\n');
  const found = findings.map((finding) => finding.text).join('\n\n');
  const system = [
    persistent,
    SYSTEM_INSTRUCTION,
    context ? `Context passages:\n\n${context}` : '',
    found ? `From the room's databases and APIs:\n\n${found}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  return [
    { role: 'system' as const, content: system },
    ...earlier,
    { role: 'user' as const, content: question },
  ];
}

/** Words too common to tell sentences apart (English; other words count in any language). */
const COMMON = new Set(
  'the and for are was were what when where which who whom whose how does did has have had its this that these those with from into about there their they them than then also not can may will would should could many much more most some any all one each other been being very only just such'.split(
    ' ',
  ),
);
/** Words of a text, lower-case, without the common ones, plural and tense endings cut ("runs": "run"). */
const wordsOf = (text: string) =>
  (text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])
    .filter((word) => !COMMON.has(word))
    .map((word) => (word.length > 3 ? word.replace(/(?:ing|ed|s)$/, '') : word));

/**
 * A short extract of a passage for a question: its sentences that share the rarest words with
 * the question (a word in every sentence, like the document's subject, tells little), each with
 * the sentence after it (the answer often follows the sentence that names the subject), in
 * their order, cut at EXTRACT_CHARS. A small model copies from a short extract what it misses
 * in a long passage, and short extracts of five passages fit its context where whole chunks do
 * not.
 */
export function extractOf(text: string, question: string): string {
  const asked = new Set(wordsOf(question));
  const sentences = text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter(Boolean);
  const words = sentences.map((sentence) => new Set(wordsOf(sentence)));
  // A word shared with one sentence counts 1; with n sentences, 1/n.
  const weight = (word: string) => 1 / words.filter((w) => w.has(word)).length;
  const best = words
    .map((shared, index) => ({
      index,
      score: [...asked].filter((word) => shared.has(word)).reduce((sum, w) => sum + weight(w), 0),
    }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, EXTRACT_SENTENCES);
  const kept = new Set(best.flatMap(({ index }) => [index, index + 1]));
  const extract = sentences.filter((_, index) => kept.has(index)).join(' ');
  return extract.length > EXTRACT_CHARS ? `${extract.slice(0, EXTRACT_CHARS)}…` : extract;
}
