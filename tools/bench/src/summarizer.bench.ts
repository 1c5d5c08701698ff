/**
 * The summarizer (built, `services/summarizer/dist`):
 * 1. wall time of `/summarize` over 20 chunks with the LLM stand-in answering every call in
 *    500 ms, for LLM_MAX_CONCURRENCY 1, 2 and 8, against the ideal
 *    `ceil(20 / concurrency) × 0.5 s + 0.5 s` (stage 1, then the final merge);
 * 2. chunking throughput on 50 MB of text against a naive regex split.
 * Both are started as processes from their build output: run `npx tsc -b` first.
 */
import { join } from 'node:path';
import { startService, type StartedService } from './process';
import { report, table } from './report';

const ROOT = join(__dirname, '..', '..', '..');
const SUMMARIZER = join(ROOT, 'services', 'summarizer', 'dist', 'main.js');
const LLM_STUB = join(ROOT, 'tools', 'llm-stub', 'dist', 'main.js');
const CHUNKER = join(ROOT, 'services', 'summarizer', 'dist', 'chunker.js');

const LATENCY_S = 0.5;
const CHUNKS = 20;
const CHUNK_WORDS = 500;

interface Chunker {
  chunkBySentences: (text: string, maxWords: number) => Array<{ text: string; words: number }>;
}

export async function run(): Promise<void> {
  await wallTimeAgainstIdeal();
  await chunkingThroughput();
}

/** `count` sentences of ten words: 50 of them fill one 500-word chunk exactly. */
function sentences(count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i += 1) {
    out.push(`Sentence ${i} tells the reader about a quiet river town.`);
  }
  return out.join(' ');
}

async function wallTimeAgainstIdeal(): Promise<void> {
  const stub = await startService(LLM_STUB, {
    env: { LLM_STUB_LATENCY_MS: String(LATENCY_S * 1000) },
    readyPath: '/v1/models',
  });
  const stubUrl = stub.url;
  const text = sentences((CHUNKS * CHUNK_WORDS) / 10);
  const rows: Array<Record<string, string | number>> = [];
  try {
    for (const concurrency of [1, 2, 8]) {
      const service = await startService(SUMMARIZER, {
        env: {
          BASE_URL_LOCAL: `${stubUrl}/v1`,
          MODEL_LOCAL: 'pelita-stub',
          LLM_MAX_CONCURRENCY: String(concurrency),
        },
      });
      try {
        // Warm-up: as many chunks as calls run at once, so connections to the stand-in exist.
        await summarize(service, sentences(concurrency * (CHUNK_WORDS / 10)), CHUNK_WORDS);
        const runs: number[] = [];
        let stats = { chatCompletions: 0, peakInFlight: 0 };
        for (let i = 0; i < (concurrency === 1 ? 2 : 3); i += 1) {
          await fetch(`${stubUrl}/_stub/reset`, { method: 'POST' });
          const started = performance.now();
          const chunks = await summarize(service, text, CHUNK_WORDS);
          runs.push((performance.now() - started) / 1000);
          if (chunks !== CHUNKS) throw new Error(`expected ${CHUNKS} chunks, got ${chunks}`);
          stats = (await (await fetch(`${stubUrl}/_stub/stats`)).json()) as typeof stats;
        }
        const ideal = Math.ceil(CHUNKS / concurrency) * LATENCY_S + LATENCY_S;
        // The same, counting every call made after stage 1 (final merge and key-point entities).
        const afterStageOne = stats.chatCompletions - CHUNKS;
        const planned =
          (Math.ceil(CHUNKS / concurrency) + Math.ceil(afterStageOne / concurrency)) * LATENCY_S;
        const best = Math.min(...runs);
        const mean = runs.reduce((sum, value) => sum + value, 0) / runs.length;
        rows.push({
          LLM_MAX_CONCURRENCY: concurrency,
          'model calls': stats.chatCompletions,
          'peak in flight': stats.peakInFlight,
          runs: runs.length,
          'best s': best.toFixed(2),
          'mean s': mean.toFixed(2),
          'ideal s': ideal.toFixed(2),
          'best/ideal': (best / ideal).toFixed(3),
          'mean/ideal': (mean / ideal).toFixed(3),
          'ideal (all calls) s': planned.toFixed(2),
          'best/ideal (all calls)': (best / planned).toFixed(3),
        });
      } finally {
        await service.stop();
      }
    }
  } finally {
    await stub.stop();
  }
  report(
    `/summarize, ${CHUNKS} chunks of ${CHUNK_WORDS} words, stand-in at ${LATENCY_S * 1000} ms per call ` +
      '(ideal: ceil(20 / concurrency) × 0.5 s + 0.5 s final merge). Beside the final merge run the ' +
      'entity calls over the aggregated key points (2 chunks of 500 words here): one more wave ' +
      'at concurrency 1 and 2; "ideal (all calls)" counts them.',
  );
  table(rows);
}

async function summarize(
  service: StartedService,
  text: string,
  chunkSize: number,
): Promise<number> {
  const form = new FormData();
  form.append('file', new Blob([text]), 'bench.txt');
  form.append('chunk_size', String(chunkSize));
  const res = await fetch(`${service.url}/summarize`, {
    method: 'POST',
    body: form,
  });
  if (res.status !== 200) throw new Error(`summarize answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { total_initial_chunks: number };
  return body.total_initial_chunks;
}

/** About `bytes` of prose: sentences of varied length and punctuation, paragraphs, numbers. */
function prose(bytes: number): string {
  const words = ['the', 'river', 'Jakarta', 'council', 'agreed', 'on', '3.5', 'percent', 'growth'];
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i += 1) {
    const length = 5 + ((i * 7) % 23);
    const sentence: string[] = [];
    for (let w = 0; w < length; w += 1) sentence.push(words[(i + w * 3) % words.length] ?? '');
    const end = i % 11 === 0 ? '?' : i % 13 === 0 ? '!' : '.';
    const piece = `${sentence.join(' ')}${end}${i % 17 === 0 ? '\n\n' : ' '}`;
    parts.push(piece);
    size += piece.length;
  }
  return parts.join('');
}

/** The baseline: split at sentence ends with a regular expression, then pack by word count. */
function naiveChunks(text: string, maxWords: number): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let words = 0;
  for (const sentence of text.split(/(?<=[.!?])\s+/)) {
    const count = sentence.split(/\s+/).filter(Boolean).length;
    if (words > 0 && words + count > maxWords) {
      chunks.push(current.join(' '));
      current = [];
      words = 0;
    }
    current.push(sentence);
    words += count;
  }
  if (current.length > 0) chunks.push(current.join(' '));
  return chunks;
}

function bestOf(runs: number, task: () => number): { seconds: number; chunks: number } {
  let best = Number.POSITIVE_INFINITY;
  let chunks = 0;
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    chunks = task();
    best = Math.min(best, (performance.now() - started) / 1000);
  }
  return { seconds: best, chunks };
}

async function chunkingThroughput(): Promise<void> {
  const { chunkBySentences } = (await import(CHUNKER)) as Chunker;
  const text = prose(50 * 1024 * 1024);
  const megabytes = Buffer.byteLength(text) / (1024 * 1024);
  const pelita = bestOf(5, () => chunkBySentences(text, 10_000).length);
  const naive = bestOf(5, () => naiveChunks(text, 10_000).length);
  report(`\nchunking ${megabytes.toFixed(1)} MB into 10,000-word chunks (best of 5)`);
  table([
    {
      chunker: 'pelita (one pass over the characters)',
      chunks: pelita.chunks,
      s: pelita.seconds.toFixed(3),
      'MB/s': (megabytes / pelita.seconds).toFixed(1),
    },
    {
      chunker: 'baseline (regex split, then pack)',
      chunks: naive.chunks,
      s: naive.seconds.toFixed(3),
      'MB/s': (megabytes / naive.seconds).toFixed(1),
    },
  ]);
  report(`pelita/baseline throughput ratio: ${(naive.seconds / pelita.seconds).toFixed(2)}`);
}
