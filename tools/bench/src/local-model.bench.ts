/**
 * The chat's first token on the real local model (`tools/local-model`, SmolLM2-135M on one CPU
 * thread) while a document is being summarised: a streamed chat question of the size an answer
 * with passages has, alone, then while a summary request shaped like the summarizer's (a
 * 900-word document part, its JSON schema as `response_format`) runs on the background lane
 * (`/background/v1`, a llama context of its own). The baseline is the one-lane server it
 * replaces: the same chat sent to the same lane as the summary waits for the whole summary.
 */
import { startLocalModel, type LocalModelProcess } from '@pelita/local-model';
import { percentile, report, table } from './report';

const ROUNDS = 3;
/** How long the summary runs before the chat is asked: its prompt is being evaluated then. */
const SUMMARY_HEAD_START_MS = 1_500;

const SENTENCES = [
  'The harbour board of Sallow met on Monday to discuss the new pier.',
  'Fishing boats have doubled in number since the market opened in 2015.',
  'The ferry across the Vesk river now leaves every forty minutes.',
  'Repairs to the lighthouse on Brannock Point will take until autumn.',
  'The glass cooperative in Lenwick sold more tumblers than ever before.',
  'A weather station on Mount Calder recorded the coldest night in a decade.',
];
const DOCUMENT = Array.from({ length: 75 }, (_, i) => SENTENCES[i % SENTENCES.length]).join(' ');

const summaryBody = (model: string) => ({
  model,
  max_tokens: 256,
  temperature: 0.2,
  messages: [
    {
      role: 'system',
      content:
        'You summarise one part of a longer document.\nReturn a JSON object with exactly these keys:\n{"summary": "a concise summary of this part", "key_points": ["the main points"]}\nAnswer with that one JSON object only.',
    },
    { role: 'user', content: `<document>\n${DOCUMENT}\n</document>` },
  ],
  response_format: {
    type: 'json_schema',
    json_schema: {
      name: 'chunk_summary',
      strict: true,
      schema: {
        type: 'object',
        properties: {
          summary: { type: 'string' },
          key_points: { type: 'array', items: { type: 'string' } },
        },
        required: ['summary', 'key_points'],
        additionalProperties: false,
      },
    },
  },
});

const chatBody = (model: string) => ({
  model,
  stream: true,
  max_tokens: 32,
  temperature: 0,
  messages: [
    {
      role: 'user',
      content: `Extracts:\n[1] Vesk river ferry: ${SENTENCES.slice(0, 4).join(' ')}\n[2] Quillmoor lighthouse: ${SENTENCES.slice(2).join(' ')}\n\nAnswer the question by quoting the extract that holds the answer.\n\nQuestion: How often does the ferry across the Vesk river leave?`,
    },
  ],
});

/** Milliseconds to the first content of a streamed chat completion (the rest is read). */
async function firstToken(baseUrl: string, body: object): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok || !res.body) throw new Error(`chat answered ${res.status}`);
  let first: number | undefined;
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    text += decoder.decode(chunk as Uint8Array, { stream: true });
    if (first === undefined && /"content":"[^"]/.test(text)) first = performance.now() - started;
  }
  if (first === undefined) throw new Error('the chat streamed no text');
  return first;
}

/** Starts a summary; the promise ends with its duration (or when it was stopped). */
function summary(baseUrl: string, body: object, signal: AbortSignal): Promise<number> {
  const started = performance.now();
  return fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  })
    .then(async (res) => {
      if (!res.ok) throw new Error(`summary answered ${res.status}`);
      await res.json();
      return performance.now() - started;
    })
    .catch((err: unknown) => {
      if (signal.aborted) return Number.NaN;
      throw err;
    });
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** First token of a chat sent to `chatUrl` while a summary runs on `summaryUrl`. */
async function duringSummary(model: LocalModelProcess, chatUrl: string, summaryUrl: string) {
  const stop = new AbortController();
  const running = summary(summaryUrl, summaryBody(model.model), stop.signal);
  await delay(SUMMARY_HEAD_START_MS);
  const first = await firstToken(chatUrl, chatBody(model.model));
  stop.abort();
  const summaryMs = await running;
  return { first, summaryMs };
}

export async function run(): Promise<void> {
  const model = await startLocalModel();
  try {
    await firstToken(model.url, chatBody(model.model));
    const alone: number[] = [];
    const beside: number[] = [];
    const sameLane: number[] = [];
    const summaries: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      alone.push(await firstToken(model.url, chatBody(model.model)));
      beside.push((await duringSummary(model, model.url, model.backgroundUrl)).first);
      // The one-lane server: the chat queued behind the summary (which ends on its own).
      const queued = await duringSummary(model, model.backgroundUrl, model.backgroundUrl);
      sameLane.push(queued.first);
      summaries.push(queued.summaryMs);
    }
    const ms = (values: number[]) => percentile(values, 50).toFixed(0);
    const ratio = (values: number[]) => (percentile(values, 50) / percentile(alone, 50)).toFixed(2);
    report(
      `local model: ${model.model}, one thread a lane; a streamed chat question (about 150 prompt tokens) alone and while a summary (about 1,000 prompt tokens, JSON schema) runs; ${ROUNDS} rounds, medians`,
    );
    table([
      { chat: 'alone', 'first token ms': ms(alone), 'ratio to alone': '1.00' },
      {
        chat: 'during a summary, chat lane (/v1)',
        'first token ms': ms(beside),
        'ratio to alone': ratio(beside),
      },
      {
        chat: 'during a summary, same lane (one-lane baseline)',
        'first token ms': ms(sameLane),
        'ratio to alone': ratio(sameLane),
      },
    ]);
    report(`summary alone on the background lane: median ${ms(summaries)} ms`);
  } finally {
    await model.stop();
  }
}
