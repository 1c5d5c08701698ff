/**
 * The instructions sent to the model. Each task asks for one JSON object whose keys are listed
 * in a skeleton; the text to work on follows in the user message between `<document>` tags.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { ENTITY_KEYS } from './entities';

export type ModelTask =
  /** Stage 1: one chunk of the original text. */
  | { kind: 'chunk'; ner: boolean }
  /** Stage 2 and later: a chunk of combined summaries, shrunk again; never with entities. */
  | { kind: 'reduce' }
  /** The final merge over the combined summaries. */
  | { kind: 'final'; ner: boolean }
  /** Entities only (`/extract_entities`, and the entities of the aggregated key points). */
  | { kind: 'entities' }
  /** The final summary as plain text: the fallback when the JSON final merge never parsed. */
  | { kind: 'final_text' };

const ENTITY_GUIDE = [
  'Named entities, each key an array of the exact names as written in the text (empty when none):',
  'PER persons; ORG organisations; GPE countries, cities and regions; LOC other places (rivers, mountains, areas);',
  'DATE dates and periods; TIME times of day; EVENT named events; FAC facilities (buildings, airports, bridges).',
].join('\n');

const ENTITY_SKELETON = `"named_entities": {${ENTITY_KEYS.map((key) => `"${key}": []`).join(', ')}}`;

const ANSWER_RULES =
  'Answer with that one JSON object only: no text before or after it, no code fence. ' +
  'Write in the language of the document.';

function systemPrompt(task: ModelTask): string {
  switch (task.kind) {
    case 'chunk':
      return [
        'You summarise one part of a longer document.',
        'Return a JSON object with exactly these keys:',
        `{"summary": "a concise summary of this part", "key_points": ["the main points"], "topics": ["short topic labels"]${task.ner ? `, ${ENTITY_SKELETON}` : ''}}`,
        ...(task.ner
          ? [
              ENTITY_GUIDE,
              'Take the entities from the document text itself, not from your summary.',
            ]
          : []),
        ANSWER_RULES,
      ].join('\n');
    case 'reduce':
      return [
        'You shorten a text made of summaries of consecutive parts of one document.',
        'Return a JSON object with exactly this key:',
        '{"summary": "a shorter summary that keeps every important fact"}',
        ANSWER_RULES,
      ].join('\n');
    case 'final':
      return [
        'You write the final summary of a document from the summaries of its parts, in order.',
        'Return a JSON object with exactly these keys:',
        `{"summary": "the summary of the whole document", "key_points": ["the main points of the whole document"], "topics": ["short topic labels"]${task.ner ? `, ${ENTITY_SKELETON}` : ''}}`,
        ...(task.ner ? [ENTITY_GUIDE] : []),
        ANSWER_RULES,
      ].join('\n');
    case 'final_text':
      return [
        'You write the final summary of a document from the summaries of its parts, in order.',
        'Answer with the summary only, as plain prose: no JSON, no headings, no preamble.',
        'Write in the language of the document.',
      ].join('\n');
    case 'entities':
      return [
        'You extract named entities from a text.',
        'Return a JSON object with exactly this key:',
        `{${ENTITY_SKELETON}}`,
        ENTITY_GUIDE,
        ANSWER_RULES,
      ].join('\n');
  }
}

export function buildMessages(task: ModelTask, text: string): ChatCompletionMessageParam[] {
  return [
    { role: 'system', content: systemPrompt(task) },
    { role: 'user', content: `<document>\n${text}\n</document>` },
  ];
}
