/**
 * The core backend's chat paths, each against a baseline in the same run.
 *
 * History: `GET /v1/api/open-api/workspaces/:id/history` over one 100,000-message session at
 * `limit` 300 (pages 1 and 30) and 10000 (pages 1 and 10, the last full one), against a plain
 * `SELECT * ... ORDER BY created_at DESC LIMIT/OFFSET` of the same table straight from
 * PostgreSQL. Target: p99 of page 30 within 1.5x of page 1 (the page index makes depth cheap).
 *
 * Completions: `POST /open-api/chat/completions`, streamed, through app-key authentication,
 * BM25 retrieval over 2,000 passages of the workspace, the prompt, the stand-in model and the
 * stored record; against the same request sent straight to the LLM stand-in. Target: under
 * 30 ms added to the first token.
 */
import { randomUUID } from 'node:crypto';
import { startLlmStub } from '@pelita/llm-stub';
import { requireEnv } from '@pelita/testenv';
import pg from 'pg';
import { json, startBenchCore, type BenchCore } from './core-backend';
import { percentile, report, table } from './report';

const MESSAGES = 100_000;
const SESSION = 'bench-history';
const PASSAGES = 2_000;
const COMPLETIONS = 100;

async function timed(times: number, work: () => Promise<void>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < times; i += 1) {
    const started = performance.now();
    await work();
    samples.push(performance.now() - started);
  }
  return samples;
}

const ms = (value: number) => value.toFixed(1);

async function history(core: BenchCore, db: pg.Pool, workspaceId: string, key: string) {
  // One real exchange makes the session's room; the rest are written straight to its table.
  await json(
    fetch(`${core.url}/open-api/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'x-session-id': SESSION,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        model: 'pelita-stub',
        messages: [{ role: 'user', content: 'First question of the session.' }],
      }),
    }),
    'POST /open-api/chat/completions',
  );
  const { rows } = await db.query<{ id: string }>(
    `select id from ${core.schema}.room_chats where session_id = $1`,
    [SESSION],
  );
  const roomId = rows[0]!.id;
  await db.query(
    `insert into ${core.schema}.chat_histories
       (id, room_id, workspace_id, session_id, seq, chat, response, llm, created_at, updated_at)
     select gen_random_uuid(), $1, $2, $3, g + 1, 'Question number ' || g,
       repeat('An answer of some length. ', 12), 'pelita-stub',
       now() - make_interval(secs => $4::int - g), now() - make_interval(secs => $4::int - g)
     from generate_series(1, $4::int - 1) g`,
    [roomId, workspaceId, SESSION, MESSAGES],
  );
  await db.query(
    `update ${core.schema}.room_chats set last_seq = $2::bigint, message_count = $2::int where id = $1`,
    [roomId, MESSAGES],
  );
  await db.query(`analyze ${core.schema}.chat_histories`);

  const cases = [
    { limit: 300, page: 1, times: 200 },
    { limit: 300, page: 30, times: 200 },
    { limit: 10_000, page: 1, times: 20 },
    { limit: 10_000, page: 10, times: 20 },
  ];
  const rowsOut: Array<Record<string, string | number>> = [];
  const p99: Record<string, number> = {};
  for (const { limit, page, times } of cases) {
    const url = `${core.url}/v1/api/open-api/workspaces/${workspaceId}/history?page=${page}&limit=${limit}`;
    const get = async () => {
      const res = await fetch(url, {
        headers: { authorization: `Bearer ${key}`, 'x-session-id': SESSION },
      });
      const body = (await res.json()) as { data: { results: unknown[] } };
      if (!res.ok || body.data.results.length !== limit) {
        throw new Error(`history page ${page} at ${limit}: ${res.status}`);
      }
    };
    const plain = async () => {
      const answer = await db.query(
        `select * from ${core.schema}.chat_histories where room_id = $1
         order by created_at desc limit $2 offset $3`,
        [roomId, limit, (page - 1) * limit],
      );
      if (answer.rows.length !== limit) throw new Error('baseline page short');
    };
    await timed(3, get);
    await timed(3, plain);
    const endpoint = await timed(times, get);
    const baseline = await timed(times, plain);
    p99[`${limit}:${page}`] = percentile(endpoint, 99);
    rowsOut.push({
      case: `limit ${limit}, page ${page}`,
      'endpoint p50 ms': ms(percentile(endpoint, 50)),
      'endpoint p99 ms': ms(percentile(endpoint, 99)),
      'baseline p50 ms': ms(percentile(baseline, 50)),
      'baseline p99 ms': ms(percentile(baseline, 99)),
      'ratio p99': (percentile(endpoint, 99) / percentile(baseline, 99)).toFixed(2),
    });
  }
  report(
    `history: one session of ${MESSAGES} messages; baseline: plain SELECT ... ORDER BY created_at DESC LIMIT/OFFSET in PostgreSQL (no HTTP, no JSON)`,
  );
  table(rowsOut);
  const depth = (p99['300:30'] ?? 0) / (p99['300:1'] ?? 1);
  report(`history depth: p99 page 30 / page 1 at limit 300 = ${depth.toFixed(2)} (target <= 1.50)`);
}

/** Time to the first content chunk and to `[DONE]` of one streamed completion. */
async function streamTimes(url: string, headers: Record<string, string>, body: object) {
  const started = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok || !res.body) throw new Error(`${url} answered ${res.status}`);
  let first: number | undefined;
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    text += decoder.decode(chunk as Uint8Array, { stream: true });
    if (first === undefined && text.includes('"content":"')) first = performance.now() - started;
  }
  if (!text.includes('data: [DONE]')) throw new Error('the stream did not end with [DONE]');
  return { first: first ?? Number.NaN, total: performance.now() - started };
}

async function completions(core: BenchCore, stubUrl: string, workspaceId: string, key: string) {
  const { OPENSEARCH_URL } = requireEnv('OPENSEARCH_URL');
  const lines: string[] = [];
  for (let i = 0; i < PASSAGES; i += 1) {
    lines.push(JSON.stringify({ index: { _index: core.settings.KNOWLEDGE_INDEX, _id: `p${i}` } }));
    lines.push(
      JSON.stringify({
        workspace_id: workspaceId,
        resource_type: 'document',
        resource_id: randomUUID(),
        kind: 'chunk',
        position: 0,
        title: `Report ${i}`,
        text: `Passage ${i} about river levels, harbour traffic and the ferry timetable of week ${i % 52}.`,
      }),
    );
  }
  await json(
    fetch(`${OPENSEARCH_URL}/_bulk?refresh=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: `${lines.join('\n')}\n`,
    }),
    'bulk passages',
  );
  const body = {
    model: 'pelita-stub',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'When does the ferry leave during week 12?' }],
  };
  const viaCore = () =>
    streamTimes(`${core.url}/open-api/chat/completions`, { authorization: `Bearer ${key}` }, body);
  const direct = () => streamTimes(`${stubUrl}/chat/completions`, {}, body);
  for (let i = 0; i < 10; i += 1) {
    await viaCore();
    await direct();
  }
  const viaCoreTimes: Array<{ first: number; total: number }> = [];
  const stub: Array<{ first: number; total: number }> = [];
  for (let i = 0; i < COMPLETIONS; i += 1) {
    viaCoreTimes.push(await viaCore());
    stub.push(await direct());
  }
  const row = (what: string, pick: (t: { first: number; total: number }) => number) => {
    const c = viaCoreTimes.map(pick);
    const s = stub.map(pick);
    return {
      measure: what,
      'core p50 ms': ms(percentile(c, 50)),
      'core p99 ms': ms(percentile(c, 99)),
      'stand-in p50 ms': ms(percentile(s, 50)),
      'stand-in p99 ms': ms(percentile(s, 99)),
      'added p50 ms': ms(percentile(c, 50) - percentile(s, 50)),
      target: what === 'first token' ? 'added < 30 ms' : '',
    };
  };
  report(
    `completions: ${COMPLETIONS} streamed, BM25 retrieval over ${PASSAGES} passages, stored in the history; baseline: the LLM stand-in called directly`,
  );
  table([row('first token', (t) => t.first), row('whole answer', (t) => t.total)]);
}

export async function run(): Promise<void> {
  const { POSTGRES_URL } = requireEnv('POSTGRES_URL');
  const stub = await startLlmStub({ latencyMs: 0 });
  const db = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
  let core: BenchCore | undefined;
  try {
    core = await startBenchCore({ BASE_URL_LOCAL: stub.url, MODEL_LOCAL: 'pelita-stub' });
    const workspaceId = await core.workspace('bench');
    const key = await core.appKey(workspaceId);
    await history(core, db, workspaceId, key);
    await completions(core, stub.url, workspaceId, key);
  } finally {
    await core?.stop();
    await db.end();
    await stub.close();
  }
}
