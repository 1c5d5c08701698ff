/**
 * The seed's summarise call: the chunks as a JSON text file in the multipart field `file`, with
 * `chunk_size=10000`, `target_context=128000`, `enable_ner=true`, to `{url}/summarize`; retried 3
 * times with backoff on 500, 502, 503 and 504; 10 s to connect, 600 s to read. node:http rather
 * than fetch, because the seed's two time limits are separate.
 */
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { request as requestTls } from 'node:https';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface SummarizerClientOptions {
  baseUrl: string;
  connectTimeoutMs: number;
  readTimeoutMs: number;
  retries: number;
  /** First back-off; doubled before each further retry. */
  backoffMs: number;
}

/** The parts of the summarizer's result file used here (see services/summarizer). */
export interface SummaryFile {
  total_initial_chunks: number;
  summarize_chunk: Array<{
    chunk_index: number;
    original_tokens: number;
    summary_tokens: number;
    summary: string;
    key_points: string[];
    topics: string[];
    named_entities: Record<string, string[]>;
  }>;
  final_summary: {
    summary: string;
    key_points_model: string[];
    topics_aggregated: string[];
    named_entities: Record<string, unknown>;
  };
  final_summary_tokens: number;
}

const RETRIED = new Set([500, 502, 503, 504]);

class SummarizerError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'SummarizerError';
  }
}

export interface SummarizerClient {
  /** Sends the JSON text file at `path` (its name is the upload's). */
  summarize(path: string): Promise<SummaryFile>;
}

export function createSummarizerClient(options: SummarizerClientOptions): SummarizerClient {
  const url = new URL('/summarize', options.baseUrl);

  async function postOnce(
    body: Buffer,
    contentType: string,
  ): Promise<{ status: number; body: Buffer }> {
    const send = url.protocol === 'https:' ? requestTls : request;
    return new Promise((resolve, reject) => {
      const req = send(url, {
        method: 'POST',
        headers: { 'content-type': contentType, 'content-length': body.length },
      });
      const connectTimer = setTimeout(
        () =>
          req.destroy(new SummarizerError(`no connection within ${options.connectTimeoutMs} ms`)),
        options.connectTimeoutMs,
      );
      req.on('socket', (socket) => {
        const connected = () => {
          clearTimeout(connectTimer);
          socket.setTimeout(options.readTimeoutMs, () =>
            req.destroy(new SummarizerError(`no answer within ${options.readTimeoutMs} ms`)),
          );
        };
        if (socket.connecting) socket.once('connect', connected);
        else connected();
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', (err) => {
        clearTimeout(connectTimer);
        reject(err);
      });
      req.on('close', () => clearTimeout(connectTimer));
      req.end(body);
    });
  }

  return {
    async summarize(path) {
      const form = new FormData();
      form.append(
        'file',
        new Blob([await readFile(path)], { type: 'application/json' }),
        basename(path),
      );
      form.append('chunk_size', '10000');
      form.append('target_context', '128000');
      form.append('enable_ner', 'true');
      // The encoded form and its boundary, sent with node:http.
      const encoded = new Request('http://form.invalid', { method: 'POST', body: form });
      const contentType = encoded.headers.get('content-type') ?? 'multipart/form-data';
      const body = Buffer.from(await encoded.arrayBuffer());

      for (let attempt = 0; ; attempt += 1) {
        const answer = await postOnce(body, contentType);
        if (answer.status === 200) return JSON.parse(answer.body.toString('utf8')) as SummaryFile;
        if (!RETRIED.has(answer.status) || attempt >= options.retries) {
          throw new SummarizerError(
            `the summarizer answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`,
            answer.status,
          );
        }
        await sleep(options.backoffMs * 2 ** attempt);
      }
    },
  };
}
