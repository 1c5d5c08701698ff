/**
 * Answer quality with the real local model (SmolLM2-135M on node-llama-cpp, `tools/local-model`,
 * from the cache `make local-model` fills): one-page documents, each a few made-up facts no
 * model can know among a page of other sentences, indexed as the core backend's document
 * passages, and questions asked in rooms of the core backend, each with the string its answer
 * must hold.
 *
 * Answer accuracy: answers holding the expected string (case-insensitive). Source hit rate:
 * answers whose `sources` event names the document the fact is in (an answer that failed before
 * it started has no `sources`: a miss). Measured for the prompt
 * with the passages in the system turn (CHAT_PASSAGES_IN=system, the earlier layout) against
 * the passages as numbered extracts in the user turn (the default), in the same run, on the
 * same model server and index contents. Temperature 0 (greedy): a run repeats.
 */
import { randomUUID } from 'node:crypto';
import { startLocalModel, type LocalModelProcess } from '@pelita/local-model';
import { requireEnv } from '@pelita/testenv';
import { json, startBenchCore, type BenchCore } from './core-backend';
import { report, table } from './report';

interface Doc {
  title: string;
  text: string;
}

/**
 * What surrounds the facts in a real page: sentences about the place that answer none of the
 * questions. Each document gets a page of them (about 450 words) around its facts, the size of
 * a document chunk the core backend indexes, so five retrieved passages do not all fit the
 * model's 2,048-token context whole.
 */
const FILLER = [
  'Visitors to {name} often ask for directions at the tourist office.',
  'The local newspaper has written about {name} many times over the years.',
  'In winter the roads around the area can be closed for several days.',
  'The municipality publishes a yearly report with figures on tourism and trade.',
  'Older residents still remember how different the region looked before the war.',
  'A small café nearby serves coffee and cake to walkers and cyclists.',
  'School classes from the surrounding towns visit {name} on excursions.',
  'Photographs from the early days are kept in the regional archive.',
  'The regional council discussed a budget for repairs at its spring meeting.',
  'Many of the people who work at {name} live in the neighbouring villages.',
  'Guided tours are offered in summer, mostly at weekends.',
  'A footpath along the coast connects several of the places described in this guide.',
  'Some of the old buildings in the area are protected as monuments.',
  'The weather in spring is changeable, with rain showers and strong winds.',
  'A volunteer association helps to keep {name} in good condition.',
  'Local shops sell postcards and small souvenirs.',
  'The area is popular with birdwatchers, especially in autumn.',
  'Bus connections are infrequent outside the summer season.',
  'A history society gives talks about the region once a month.',
  'The nearest hospital is in the county town, an hour away by car.',
];
function page(index: number, title: string, facts: string): string {
  const filler = (from: number) =>
    Array.from({ length: 14 }, (_, i) =>
      FILLER[(index * 3 + from + i) % FILLER.length]!.replace('{name}', title),
    ).join(' ');
  return `${filler(0)}\n\n${facts}\n\n${filler(7)}`;
}

const DOCUMENTS: Doc[] = [
  {
    title: 'Quillmoor lighthouse',
    text: 'The Quillmoor lighthouse stands on Brannock Point, north of the fishing village of Sallow. It was built in 1887 by the engineer Odile Farrant. The tower is 31 metres high and has 140 steps. Its lamp is painted teal, a colour chosen by the harbour board. The light flashes every seven seconds and can be seen from 22 nautical miles. The keeper’s cottage has eleven rooms and is now a small museum.',
  },
  {
    title: 'Vesk river ferry',
    text: 'A single ferry crosses the Vesk river between Oststrand and Kellin. The ferry is called the Marigold Wren and carries 48 passengers and six bicycles. The first crossing leaves Oststrand pier at 06:40 every weekday. A ticket costs three zlotans; children under ten travel free. The ferry is run by captain Ilse Tormund, who has worked on the river since 2009.',
  },
  {
    title: 'Harbin Glass cooperative',
    text: 'The Harbin Glass cooperative was founded in the town of Lenwick in 1953. It has 212 members, most of them glassblowers. Its best-known product is the Lenwick tumbler, a cobalt blue drinking glass. The furnace has not been switched off since 1978. Every member owns one share and has one vote.',
  },
  {
    title: 'Pelorine festival',
    text: 'The Pelorine festival takes place in the village of Ambervale on the third Sunday of May. Cooks compete with saffron barley soup, the dish of the festival. The winner receives a copper ladle engraved with the year. About 900 visitors came in the last year.',
  },
  {
    title: 'Orrin-7 weather station',
    text: 'The Orrin-7 weather station sits at 2,340 metres on Mount Calder. It is run by the Nordvik Institute. Its coldest reading was minus 41.6 degrees. The battery of the station is replaced every 19 months by a team that arrives on skis.',
  },
  // Neighbours sharing words with the questions: retrieval has to choose.
  {
    title: 'Sallow harbour',
    text: 'Sallow harbour has room for forty fishing boats. The harbour board meets on the first Monday of each month. A new pier was opened in 2015.',
  },
  {
    title: 'Kellin bicycle route',
    text: 'The Kellin bicycle route follows the Vesk river for 60 kilometres. Cyclists cross the river by bridge at Durnholm. The route is marked with green signs.',
  },
  {
    title: 'Ambervale village',
    text: 'Ambervale is a village of 1,200 people known for its barley fields. Its market is held on Saturdays. The village hall was built in 1921.',
  },
];

const QUESTIONS: Array<{ question: string; expected: string; document: string }> = [
  {
    question: 'Who built the Quillmoor lighthouse?',
    expected: 'Farrant',
    document: 'Quillmoor lighthouse',
  },
  {
    question: 'What colour is the lamp of the Quillmoor lighthouse?',
    expected: 'teal',
    document: 'Quillmoor lighthouse',
  },
  {
    question: 'How high is the Quillmoor lighthouse tower?',
    expected: '31',
    document: 'Quillmoor lighthouse',
  },
  {
    question: 'What is the name of the Vesk river ferry?',
    expected: 'Marigold Wren',
    document: 'Vesk river ferry',
  },
  {
    question: 'When does the first ferry leave Oststrand pier?',
    expected: '06:40',
    document: 'Vesk river ferry',
  },
  {
    question: 'How many passengers does the Vesk river ferry carry?',
    expected: '48',
    document: 'Vesk river ferry',
  },
  {
    question: 'In which town was the Harbin Glass cooperative founded?',
    expected: 'Lenwick',
    document: 'Harbin Glass cooperative',
  },
  {
    question: 'How many members does the Harbin Glass cooperative have?',
    expected: '212',
    document: 'Harbin Glass cooperative',
  },
  {
    question: 'What does the winner of the Pelorine festival receive?',
    expected: 'copper ladle',
    document: 'Pelorine festival',
  },
  {
    question: 'Which soup is cooked at the Pelorine festival?',
    expected: 'saffron',
    document: 'Pelorine festival',
  },
  {
    question: 'At what height is the Orrin-7 weather station?',
    expected: '2,340',
    document: 'Orrin-7 weather station',
  },
  {
    question: 'Who runs the Orrin-7 weather station?',
    expected: 'Nordvik',
    document: 'Orrin-7 weather station',
  },
];

const LAYOUTS = [
  { layout: 'system', what: 'passages in the system turn (before)' },
  { layout: 'user', what: 'numbered extracts in the user turn (after)' },
] as const;

/** Events of a room's answer (`sources`, `token`, `done` or `error`). */
async function readEvents(res: Response): Promise<Array<{ event: string; data: unknown }>> {
  if (!res.ok) return [{ event: 'error', data: { status: res.status, body: await res.text() } }];
  const events: Array<{ event: string; data: unknown }> = [];
  for (const block of (await res.text()).split('\n\n')) {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (event && data) events.push({ event, data: JSON.parse(data) as unknown });
  }
  return events;
}

/** The documents as the core backend's follower indexes them: one `chunk` passage each, a page long. */
async function indexDocuments(core: BenchCore, workspaceId: string): Promise<Map<string, string>> {
  const { OPENSEARCH_URL } = requireEnv('OPENSEARCH_URL');
  const ids = new Map(DOCUMENTS.map((doc) => [doc.title, randomUUID()]));
  const lines = DOCUMENTS.flatMap((doc, index) => [
    JSON.stringify({ index: { _index: core.settings.KNOWLEDGE_INDEX } }),
    JSON.stringify({
      workspace_id: workspaceId,
      resource_type: 'document',
      resource_id: ids.get(doc.title),
      kind: 'chunk',
      position: 0,
      title: doc.title,
      text: page(index, doc.title, doc.text),
    }),
  ]);
  await json(
    fetch(`${OPENSEARCH_URL}/_bulk?refresh=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: `${lines.join('\n')}\n`,
    }),
    'bulk documents',
  );
  return ids;
}

async function evaluate(core: BenchCore, verbose: boolean) {
  const post = (path: string, body: unknown) =>
    fetch(`${core.url}${path}`, {
      method: 'POST',
      headers: { ...core.auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const workspace = await json<{ id: string }>(
    post('/api/workspaces', { name: 'answer quality', settings: { temperature: 0 } }),
    'POST /api/workspaces',
  );
  const ids = await indexDocuments(core, workspace.id);
  let correct = 0;
  let hits = 0;
  const seconds: number[] = [];
  for (const { question, expected, document } of QUESTIONS) {
    const room = await json<{ id: string }>(
      post(`/api/workspaces/${workspace.id}/rooms`, { name: question }),
      'POST rooms',
    );
    const started = performance.now();
    const events = await readEvents(
      await post(`/api/workspaces/${workspace.id}/rooms/${room.id}/messages`, { chat: question }),
    );
    seconds.push((performance.now() - started) / 1000);
    // A failed answer (the model refused the prompt, e.g. beyond its context) counts as wrong.
    const done = events.find((e) => e.event === 'done')?.data as { response: string } | undefined;
    const answer = done?.response ?? `(no answer: ${JSON.stringify(events.at(-1)?.data)})`;
    const sources = (events.find((e) => e.event === 'sources')?.data ?? []) as Array<{
      id: string;
    }>;
    const right = answer.toLowerCase().includes(expected.toLowerCase());
    const hit = sources.some((source) => source.id === ids.get(document));
    if (right) correct += 1;
    if (hit) hits += 1;
    if (verbose) {
      report(`  ${right ? 'yes' : 'no '} ${question} -> ${JSON.stringify(answer)}`);
    }
  }
  return { correct, hits, seconds: seconds.reduce((a, b) => a + b, 0) / seconds.length };
}

export async function run(): Promise<void> {
  const verbose = process.env.BENCH_VERBOSE === '1';
  let model: LocalModelProcess | undefined;
  const rows: Array<Record<string, string | number>> = [];
  try {
    model = await startLocalModel({ LOCAL_MODEL_MAX_TOKENS: '96' });
    for (const { layout, what } of LAYOUTS) {
      if (verbose) report(`${what}:`);
      const core = await startBenchCore({
        BASE_URL_LOCAL: model.url,
        MODEL_LOCAL: model.model,
        EMBEDDINGS_MODEL: '',
        CHAT_PASSAGES_IN: layout,
      });
      try {
        const { correct, hits, seconds } = await evaluate(core, verbose);
        const n = QUESTIONS.length;
        rows.push({
          prompt: what,
          accuracy: `${correct}/${n} = ${(correct / n).toFixed(2)}`,
          'source hit rate': `${hits}/${n} = ${(hits / n).toFixed(2)}`,
          's per answer': seconds.toFixed(1),
        });
      } finally {
        await core.stop();
      }
    }
  } finally {
    await model?.stop();
  }
  report(
    `answer quality: ${QUESTIONS.length} questions over ${DOCUMENTS.length} made-up one-page documents, ${model?.model ?? 'local model'} at temperature 0, BM25 retrieval (workspace top_k); accuracy: the expected string in the answer; source hit: the document among the answer's sources`,
  );
  table(rows);
  const [before, after] = rows;
  if (before && after) {
    const ratio = (row: Record<string, string | number>) =>
      Number(String(row.accuracy).split('= ')[1]);
    report(
      `answer accuracy after / before = ${ratio(after).toFixed(2)} / ${ratio(before).toFixed(2)}`,
    );
  }
}
