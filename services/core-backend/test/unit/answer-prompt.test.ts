/**
 * The turns an answer is asked with: the workspace's persistent prompt alone in the system turn,
 * the earlier turns, then the question with its passages as short numbered extracts and the
 * instruction to quote; `system` keeps the earlier layout (instruction and whole passages in
 * the system turn).
 */
import { answerTurns, extractOf } from '../../src/chats/answer-prompt';
import type { Hit } from '../../src/retrieval/knowledge-index';
import type { Finding } from '../../src/chats/source-lookups';

const hit = (title: string, text: string): Hit => ({
  id: title,
  score: 1,
  matchedBy: ['bm25'],
  workspaceId: 'w',
  resourceType: 'document',
  resourceId: title,
  kind: 'chunk',
  position: 0,
  title,
  text,
});

const FERRY = hit(
  'Ferry',
  [
    'The ferry timetable is printed every spring.',
    'Ferry tickets are sold on board.',
    'A ferry crosses the Vesk river.',
    'It is called the Marigold Wren.',
    'The ferry is painted white.',
    'The ferry has a small café.',
    'The first crossing leaves Oststrand at 06:40.',
    'The last crossing is at nine.',
  ].join(' '),
);
const LIGHT = hit('Lighthouse', 'The lighthouse was built in 1887. Its lamp is teal.');
const finding: Finding = { type: 'database', id: 'db', ok: true, text: 'query: SELECT 1' };
const earlier = [
  { role: 'user' as const, content: 'Hello?' },
  { role: 'assistant' as const, content: 'Hello.' },
];

describe('the answer prompt', () => {
  it('puts numbered extracts, the instruction to quote and the question in the user turn', () => {
    const turns = answerTurns(
      {
        persistent: 'You are the harbour desk.',
        question: 'When does the first crossing leave Oststrand?',
        passages: [FERRY, LIGHT],
        findings: [finding],
        earlier,
      },
      'user',
    );
    expect(turns.slice(0, 3)).toEqual([
      { role: 'system', content: 'You are the harbour desk.' },
      ...earlier,
    ]);
    const asked = turns.at(-1)!;
    expect(turns).toHaveLength(4);
    expect(asked.role).toBe('user');
    expect(asked.content).toBe(
      [
        'Extracts:',
        '[1] Ferry: The first crossing leaves Oststrand at 06:40. The last crossing is at nine.',
        '[2] Lighthouse: The lighthouse was built in 1887. Its lamp is teal.',
        '',
        "From the room's databases and APIs:",
        '',
        'query: SELECT 1',
        '',
        'Answer the question by quoting the extract that holds the answer. If no extract holds it, say that you do not know.',
        '',
        'Question: When does the first crossing leave Oststrand?',
      ].join('\n'),
    );
  });

  it('sends the question alone, and no system turn, when there is nothing to add', () => {
    expect(
      answerTurns(
        { persistent: undefined, question: 'why?', passages: [], findings: [], earlier: [] },
        'user',
      ),
    ).toEqual([{ role: 'user', content: 'why?' }]);
  });

  it('keeps the earlier layout with passages in the system turn', () => {
    const turns = answerTurns(
      {
        persistent: 'You are the harbour desk.',
        question: 'When?',
        passages: [LIGHT],
        findings: [],
        earlier,
      },
      'system',
    );
    expect(turns).toEqual([
      {
        role: 'system',
        content:
          'You are the harbour desk.\n\nAnswer the question from the context passages when they hold the answer, and say so when they do not. Do not make up facts.\n\nContext passages:\n\n[1] Lighthouse\nThe lighthouse was built in 1887. Its lamp is teal.',
      },
      ...earlier,
      { role: 'user', content: 'When?' },
    ]);
  });

  it('extracts the sentences sharing the rarest words with the question, each with the next', () => {
    // "ferry" is in five sentences, "Vesk" and "river" in one: the name follows that one.
    expect(extractOf(FERRY.text, 'What is the name of the Vesk river ferry?')).toBe(
      'The ferry timetable is printed every spring. Ferry tickets are sold on board. A ferry crosses the Vesk river. It is called the Marigold Wren.',
    );
    expect(extractOf('One line\nanother line', 'nothing shared')).toBe('One line another line');
  });

  it('cuts a long extract at 500 characters', () => {
    const long = extractOf(`${'word '.repeat(200)}.`, 'word');
    expect(long).toHaveLength(501);
    expect(long.endsWith('…')).toBe(true);
  });
});
