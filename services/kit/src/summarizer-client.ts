/**
 * A call of the summarizer service (services/summarizer): a text file in the multipart field
 * `file` with `chunk_size`, `target_context` and `enable_ner`, to `{url}/summarize`; retried with
 * backoff on 500, 502, 503 and 504. The ocr-service and the core backend each send it what their
 * part of the seed says. node:http rather than fetch, because the time to connect and the time
 * to answer are limited separately.
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
  /** Words per chunk, the reduction target in words, and named-entity recognition. */
  chunkSize: number;
  targetContext: number;
  enableNer: boolean;
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
  /** Only when part of the result is degraded (failed chunks, a plain-text final summary, ...). */
  warnings?: string[];
}

const RETRIED = new Set([500, 502, 503, 504]);

export class SummarizerError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'SummarizerError';
  }
}

export interface SummarizerClient {
  /**
   * Sends the text file at `path` (its name is the upload's), or text given as it is; `signal`
   * gives up (the caller is stopping).
   */
  summarize(
    file: string | { name: string; text: string },
    signal?: AbortSignal,
  ): Promise<SummaryFile>;
}

export function createSummarizerClient(options: SummarizerClientOptions): SummarizerClient {
  const url = new URL('/summarize', options.baseUrl);

  async function postOnce(
    body: Buffer,
    contentType: string,
    signal: AbortSignal | undefined,
  ): Promise<{ status: number; body: Buffer }> {
    const send = url.protocol === 'https:' ? requestTls : request;
    return new Promise((resolve, reject) => {
      const req = send(url, {
        method: 'POST',
        headers: { 'content-type': contentType, 'content-length': body.length },
        ...(signal ? { signal } : {}),
      });
      const connectTimer = setTimeout(
        () =>
          req.destroy(new SummarizerError(`no connection within ${options.connectTimeoutMs} ms`)),
        options.connectTimeoutMs,
      );
      req.on('socket', (socket) => {
        const connected = () => {
          clearTimeout(connectTimer);
          // On the request, not the socket: a kept-alive socket would collect one listener per
          // request (the request's is removed when it ends).
          req.setTimeout(options.readTimeoutMs, () =>
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
    async summarize(file, signal) {
      const form = new FormData();
      if (typeof file === 'string') {
        form.append(
          'file',
          new Blob([await readFile(file)], { type: 'text/plain' }),
          basename(file),
        );
      } else {
        form.append('file', new Blob([file.text], { type: 'text/plain' }), file.name);
      }
      form.append('chunk_size', String(options.chunkSize));
      form.append('target_context', String(options.targetContext));
      form.append('enable_ner', String(options.enableNer));
      // The encoded form and its boundary, sent with node:http.
      const encoded = new Request('http://form.invalid', { method: 'POST', body: form });
      const contentType = encoded.headers.get('content-type') ?? 'multipart/form-data';
      const body = Buffer.from(await encoded.arrayBuffer());

      for (let attempt = 0; ; attempt += 1) {
        const answer = await postOnce(body, contentType, signal);
        if (answer.status === 200) return JSON.parse(answer.body.toString('utf8')) as SummaryFile;
        if (!RETRIED.has(answer.status) || attempt >= options.retries) {
          throw new SummarizerError(
            `the summarizer answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`,
            answer.status,
          );
        }
        await sleep(options.backoffMs * 2 ** attempt, undefined, signal ? { signal } : {});
      }
    },
  };
}
