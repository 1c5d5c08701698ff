/**
 * The deterministic answer to a chat request. The document is the text inside the last
 * `<document>...</document>` of the user messages (the whole last user message without tags);
 * the JSON keys the instructions mention (`"summary"`, `"key_points"`, `"topics"`,
 * `"named_entities"`) are the keys answered. Without any of them the answer is plain prose;
 * planning prompts (text-to-SQL, text-to-API) get their answer from `tool-answers.ts`.
 */
import {
  entitiesOf,
  keyPointsOf,
  shrinkingSummary,
  tokenCount,
  topicsOf,
  wordsOf,
} from './text-features';
import { toolAnswer } from './tool-answers';

export interface ChatMessage {
  role: string;
  content: unknown;
}

export type SummaryMode = 'shrink' | 'echo';

export interface AnswerOptions {
  summaryMode: SummaryMode;
  /** Share of the input's words a shrinking summary keeps (at least one word). */
  shrinkFraction: number;
}

const ANSWER_KEYS = ['summary', 'key_points', 'topics', 'named_entities'] as const;
export type AnswerKey = (typeof ANSWER_KEYS)[number];

export interface Answer {
  /** A JSON object when the request asks for JSON keys, otherwise prose. */
  json: Record<string, unknown> | undefined;
  prose: string;
  asked: AnswerKey[];
  document: string;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '',
      )
      .join('');
  }
  return '';
}

export function promptOf(messages: ChatMessage[]): string {
  return messages.map((message) => textOf(message.content)).join('\n');
}

function documentOf(messages: ChatMessage[]): string {
  const users = messages.filter((message) => message.role === 'user');
  const last = textOf(users[users.length - 1]?.content ?? '');
  const start = last.lastIndexOf('<document>');
  const end = last.lastIndexOf('</document>');
  if (start !== -1 && end > start) return last.slice(start + '<document>'.length, end).trim();
  return last.trim();
}

/** Whether the instructions ask for a JSON answer: answer keys, or a planning prompt. */
export function asksForJson(messages: ChatMessage[]): boolean {
  const instructions = messages
    .filter((message) => message.role === 'system')
    .map((message) => textOf(message.content))
    .join('\n');
  return (
    ANSWER_KEYS.some((key) => instructions.includes(`"${key}"`)) ||
    toolAnswer(instructions, '') !== undefined
  );
}

export function buildAnswer(
  messages: ChatMessage[],
  options: AnswerOptions,
  noShrink = false,
): Answer {
  const document = documentOf(messages);
  const instructions = messages
    .filter((message) => message.role === 'system')
    .map((message) => textOf(message.content))
    .join('\n');
  const tool = toolAnswer(instructions, document);
  if (tool !== undefined) return { json: undefined, prose: tool, asked: [], document };
  const asked = ANSWER_KEYS.filter((key) => instructions.includes(`"${key}"`));
  const summary =
    options.summaryMode === 'echo' || noShrink
      ? wordsOf(document).join(' ')
      : shrinkingSummary(document, options.shrinkFraction);
  if (asked.length === 0) return { json: undefined, prose: summary, asked, document };

  const json: Record<string, unknown> = {};
  for (const key of asked) {
    if (key === 'summary') json.summary = summary;
    if (key === 'key_points') json.key_points = keyPointsOf(document);
    if (key === 'topics') json.topics = topicsOf(document);
    if (key === 'named_entities') json.named_entities = entitiesOf(document);
  }
  return { json, prose: summary, asked, document };
}

export function usageOf(messages: ChatMessage[], content: string) {
  const prompt = messages.reduce(
    (sum, message) => sum + 4 + tokenCount(textOf(message.content)),
    0,
  );
  const completion = tokenCount(content);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}
