/**
 * The pipeline's assembly rules with a small fake of the model tasks: which source each entity
 * set comes from, what is aggregated, how failures and the reduction loop behave.
 */
import { createLogger, createMetrics, HttpError } from '@pelita/kit';
import { APIConnectionError, InternalServerError } from 'openai';
import { emptyEntities, type NamedEntities } from '../../src/entities';
import { ModelOutputError } from '@pelita/kit';
import type { ModelTasks, SummaryAnswer } from '../../src/model-tasks';
import { SummaryFileSchema } from '../../src/output-files';
import { createSummarizerMetrics } from '../../src/summarizer-metrics';
import { summarizeDocument, type SummarizeParams } from '../../src/summary-pipeline';

const entities = (patch: Partial<NamedEntities>): NamedEntities => ({
  ...emptyEntities(),
  ...patch,
});
const answer = (summary: string, patch: Partial<SummaryAnswer> = {}): SummaryAnswer => ({
  summary,
  keyPoints: [],
  topics: [],
  entities: emptyEntities(),
  usage: { promptTokens: undefined, completionTokens: undefined },
  ...patch,
});

/** The model tasks as plain functions: answers are returned, failures thrown. */
type FakeTasks = {
  [K in keyof ModelTasks]: (
    ...args: Parameters<ModelTasks[K]>
  ) => Awaited<ReturnType<ModelTasks[K]>>;
};

/** Default answers, or the overrides; every call is recorded either way. */
function fakeTasks(overrides: Partial<FakeTasks> = {}) {
  const calls: Array<{ kind: string; text: string; ner?: boolean }> = [];
  const later = <T>(answer: () => T) => Promise.resolve().then(answer);
  const base: FakeTasks = {
    summarizeChunk: (text) => answer(`sum of ${text.split(' ')[0]}`),
    reduce: (text) => answer(text.split(/\s+/).slice(0, 2).join(' ')),
    finalMerge: () => answer('final', { keyPoints: ['model point'] }),
    extractEntities: () => ({
      entities: emptyEntities(),
      usage: { promptTokens: 5, completionTokens: 1 },
    }),
    finalText: () => ({ text: 'plain final', usage: { promptTokens: 9, completionTokens: 2 } }),
    contextLength: () => undefined,
    ...overrides,
  };
  const tasks: ModelTasks = {
    summarizeChunk: (text, ner, signal) => {
      calls.push({ kind: 'chunk', text, ner });
      return later(() => base.summarizeChunk(text, ner, signal));
    },
    reduce: (text, signal) => {
      calls.push({ kind: 'reduce', text });
      return later(() => base.reduce(text, signal));
    },
    finalMerge: (text, ner, signal) => {
      calls.push({ kind: 'final', text, ner });
      return later(() => base.finalMerge(text, ner, signal));
    },
    extractEntities: (text, signal) => {
      calls.push({ kind: 'entities', text });
      return later(() => base.extractEntities(text, signal));
    },
    finalText: (text, signal) => {
      calls.push({ kind: 'final_text', text });
      return later(() => base.finalText(text, signal));
    },
    contextLength: () => base.contextLength(),
  };
  return { tasks, calls };
}

function deps(tasks: ModelTasks, maxReductionPasses = 10) {
  return {
    tasks,
    logger: createLogger({ name: 'test', level: 'silent' }),
    metrics: createSummarizerMetrics(createMetrics().registry),
    maxReductionPasses,
  };
}

const params = (patch: Partial<SummarizeParams> = {}): SummarizeParams => ({
  chunkSize: 3,
  targetContext: 1000,
  enableNer: true,
  ...patch,
});

describe('summarizeDocument', () => {
  it('merges entities from the chunks, the final summary and the key points', async () => {
    const { tasks, calls } = fakeTasks({
      summarizeChunk: (text) =>
        text.startsWith('Alpha')
          ? answer('a', {
              keyPoints: ['kp one', 'shared'],
              topics: ['t1'],
              entities: entities({ PER: ['Ann'], GPE: ['Jakarta'] }),
            })
          : answer('b', {
              keyPoints: ['SHARED', 'kp two'],
              topics: ['t1', 't2'],
              entities: entities({ PER: ['ann'], ORG: ['Acme'] }),
            }),
      finalMerge: () =>
        answer('final', {
          keyPoints: ['model point'],
          topics: ['t3'],
          entities: entities({ GPE: ['Bali'] }),
        }),
      extractEntities: () => {
        return {
          entities: entities({ EVENT: ['Expo'], GPE: ['jakarta'] }),
          usage: { promptTokens: 3, completionTokens: 1 },
        };
      },
    });
    const file = await summarizeDocument('Alpha one two. Beta three four.', params(), deps(tasks));
    expect(SummaryFileSchema.parse(file)).toEqual(file);
    const keyPointTexts = calls.filter((call) => call.kind === 'entities').map((call) => call.text);
    expect(keyPointTexts.join('\n\n')).toBe('kp one\n\nshared\n\nkp two');
    expect(file.final_summary).toEqual({
      summary: 'final',
      key_points_model: ['model point'],
      key_points_aggregated: ['kp one', 'shared', 'kp two'],
      topics_aggregated: ['t1', 't2', 't3'],
      named_entities: {
        final_summary_entities: entities({ GPE: ['Bali'] }),
        aggregated_key_points_entities: entities({ EVENT: ['Expo'], GPE: ['jakarta'] }),
        chunk_entities_merged: entities({ PER: ['Ann'], GPE: ['Jakarta'], ORG: ['Acme'] }),
        all_entities_merged: entities({
          PER: ['Ann'],
          GPE: ['Jakarta', 'Bali'],
          ORG: ['Acme'],
          EVENT: ['Expo'],
        }),
      },
    });
  });

  it('replaces a failing chunk by an empty placeholder and keeps the others', async () => {
    const { tasks } = fakeTasks({
      summarizeChunk: (text) => {
        if (text.startsWith('Beta')) throw new ModelOutputError('garbage');
        return answer('fine', { keyPoints: ['k'], entities: entities({ PER: ['Ann'] }) });
      },
    });
    const file = await summarizeDocument('Alpha one two. Beta three four.', params(), deps(tasks));
    expect(file.summarize_chunk[1]).toEqual({
      chunk_index: 1,
      original_tokens: 5, // 3 words × 1.4, rounded up
      summary_tokens: 0,
      original_text: 'Beta three four.',
      summary: '',
      key_points: [],
      topics: [],
      named_entities: emptyEntities(),
    });
    expect(file.summarize_chunk[0]?.summary).toBe('fine');
  });

  describe('a final merge that fails degrades', () => {
    const chunkAnswers = (text: string) =>
      answer(`sum of ${text.split(' ')[0]}`, {
        keyPoints: [`kp ${text.split(' ')[0]}`],
        entities: entities({ PER: ['Ann'] }),
      });

    it('to a plain-text answer, its entities read by entity calls, key points from the chunks', async () => {
      const { tasks, calls } = fakeTasks({
        summarizeChunk: chunkAnswers,
        finalMerge: () => {
          throw new ModelOutputError('no usable answer in 3 attempts');
        },
        extractEntities: (text) => ({
          entities: entities({ ORG: [text === 'plain final' ? 'FromPlain' : 'FromKeyPoints'] }),
          usage: { promptTokens: 1, completionTokens: 1 },
        }),
      });
      const file = await summarizeDocument(
        'Alpha one two. Beta three four.',
        params(),
        deps(tasks),
      );
      expect(SummaryFileSchema.parse(file)).toEqual(file);
      expect(calls.filter((call) => call.kind === 'final_text')).toHaveLength(1);
      expect(file.final_summary.summary).toBe('plain final');
      expect(file.final_summary.key_points_model).toEqual(['kp Alpha', 'kp Beta']);
      expect(file.final_summary.named_entities.final_summary_entities.ORG).toEqual(['FromPlain']);
      expect(file.final_summary_tokens).toBe(2);
      expect(file.warnings).toEqual([expect.stringMatching(/plain-text answer/)]);
    });

    it('to the chunk summaries joined when the plain text fails too, or the server failed', async () => {
      for (const failure of [
        () => new ModelOutputError('garbage'),
        () => new InternalServerError(500, { message: 'boom' }, undefined, new Headers()),
      ]) {
        const { tasks, calls } = fakeTasks({
          summarizeChunk: chunkAnswers,
          finalMerge: () => {
            throw failure();
          },
          finalText: () => {
            throw new ModelOutputError('the plain-text answer was empty');
          },
        });
        const file = await summarizeDocument(
          'Alpha one two. Beta three four.',
          params(),
          deps(tasks),
        );
        expect(file.final_summary.summary).toBe('sum of Alpha\n\nsum of Beta');
        expect(file.final_summary.named_entities.final_summary_entities).toEqual(
          entities({ PER: ['Ann'] }),
        );
        expect(file.final_summary_tokens).toBe(9); // 6 words × 1.4, rounded up
        expect(file.warnings).toEqual([expect.stringMatching(/chunk summaries joined/)]);
        // A server failure is not asked again as plain text: the SDK has already retried it.
        expect(calls.filter((call) => call.kind === 'final_text')).toHaveLength(
          failure() instanceof ModelOutputError ? 1 : 0,
        );
      }
    });

    it('but the caller going away still ends the request', async () => {
      const controller = new AbortController();
      const { tasks } = fakeTasks({
        finalMerge: () => {
          controller.abort();
          throw new ModelOutputError('garbage');
        },
      });
      await expect(
        summarizeDocument('Alpha one.', params(), deps(tasks), controller.signal),
      ).rejects.toBeInstanceOf(ModelOutputError);
    });
  });

  it('fails with the first failure classified when every chunk fails', async () => {
    const { tasks } = fakeTasks({
      summarizeChunk: () => {
        throw new APIConnectionError({ message: 'Connection error.' });
      },
    });
    const failure = summarizeDocument(
      'Alpha one. Beta two.',
      params({ chunkSize: 2 }),
      deps(tasks),
    );
    await expect(failure).rejects.toBeInstanceOf(HttpError);
    await expect(failure).rejects.toMatchObject({
      status: 503,
      code: 'llm_unreachable',
      message: expect.stringContaining('all 2 chunks failed'),
    });
  });

  it('lets a bug surface instead of hiding it in a placeholder', async () => {
    const { tasks } = fakeTasks({
      summarizeChunk: () => {
        throw new TypeError('bug');
      },
    });
    await expect(summarizeDocument('Alpha one.', params(), deps(tasks))).rejects.toThrow('bug');
  });

  it('re-summarises without entities while over target, keeping a failed chunk\u2019s text', async () => {
    let reduceCalls = 0;
    const { tasks, calls } = fakeTasks({
      summarizeChunk: (text) => answer(`${text} ${text}`),
      reduce: (text) => {
        reduceCalls += 1;
        if (reduceCalls === 1) throw new ModelOutputError('garbage');
        return answer(text.split(/\s+/)[0] ?? '');
      },
    });
    const text = 'A b c. D e f. G h i. J k l.';
    const file = await summarizeDocument(text, params({ targetContext: 8 }), deps(tasks));
    const kinds = calls.map((call) => call.kind);
    expect(kinds.filter((kind) => kind === 'chunk')).toHaveLength(4);
    expect(kinds).toContain('reduce');
    expect(
      calls.find((call) => call.kind === 'final')?.text.split(/\s+/).length,
    ).toBeLessThanOrEqual(8);
    expect(file.total_initial_chunks).toBe(4);
  });

  it('ends the loop when a pass does not shrink the text, and at the pass limit', async () => {
    const echo = fakeTasks({ reduce: (text) => answer(text) });
    const first = await summarizeDocument(
      'A b c. D e f.',
      params({ targetContext: 1 }),
      deps(echo.tasks),
    );
    expect(echo.calls.filter((call) => call.kind === 'reduce')).toHaveLength(2);
    expect(first.final_summary.summary).toBe('final');

    const slow = fakeTasks({
      reduce: (text) => answer(text.split(/\s+/).slice(1).join(' ')),
    });
    const limited = deps(slow.tasks, 2);
    await summarizeDocument('A b c. D e f. G h i.', params({ targetContext: 1 }), limited);
    // stage 1: "sum of A" ...; pass 1: "of A" ...; pass 2: "A" ...; pass 3 is over the limit
    expect(slow.calls.filter((call) => call.kind === 'reduce')).toHaveLength(6);
    expect(slow.calls.filter((call) => call.kind === 'final').map((call) => call.text)).toEqual([
      'A\n\nD\n\nG',
    ]);
    const ended = await limited.metrics.reductionLoops.get();
    expect(ended.values).toEqual([{ labels: { ended: 'pass_limit' }, value: 1 }]);
  });

  it('asks for no entities anywhere when NER is off', async () => {
    const { tasks, calls } = fakeTasks();
    const file = await summarizeDocument(
      'Alpha one two.',
      params({ enableNer: false }),
      deps(tasks),
    );
    expect(calls.filter((call) => call.kind === 'entities')).toHaveLength(0);
    expect(calls.every((call) => call.ner !== true)).toBe(true);
    expect(file.final_summary.named_entities.all_entities_merged).toEqual(emptyEntities());
  });
});
