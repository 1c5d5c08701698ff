/**
 * The client side of MinerU's v4 protocol, as plain fetch calls: what a caller of the real API
 * does (create a batch, PUT the bytes without a content type, poll, download).
 */
import { errorMessage } from '@pelita/kit';
import { waitFor } from '@pelita/testenv';

export interface BatchItem {
  file_name: string;
  data_id?: string;
  state: string;
  err_msg: string;
  err_code?: number;
  full_zip_url?: string;
  extract_progress?: { extracted_pages: number; total_pages: number; start_time: string };
}

export interface Envelope<T> {
  code: number | string;
  msg: string;
  trace_id: string;
  data: T;
}

export const TOKEN = 'test-token';

/** `api.url` is the API's base URL (`.../api/v4`), as a client is configured with it. */
export function mineruClient(api: { url: string }, token = TOKEN) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  async function call<T>(method: string, path: string, body?: unknown) {
    const res = await fetch(`${api.url}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Envelope<T> };
  }

  async function createBatch(names: string[], extra: Record<string, unknown> = {}) {
    const { body } = await call<{ batch_id: string; file_urls: string[] }>(
      'POST',
      '/file-urls/batch',
      {
        files: names.map((name) => ({ name })),
        ...extra,
      },
    );
    if (body.code !== 0) throw new Error(`batch refused: ${JSON.stringify(body)}`);
    return body.data;
  }

  /** PUT with raw bytes: fetch sends no content type for a Uint8Array body. */
  function upload(url: string, bytes: Buffer, init: RequestInit = {}) {
    return fetch(url, { method: 'PUT', body: new Uint8Array(bytes), ...init });
  }

  async function pollBatch(batchId: string) {
    return call<{ batch_id: string; extract_result: BatchItem[] }>(
      'GET',
      `/extract-results/batch/${batchId}`,
    );
  }

  /**
   * Polls until `done(items)` holds; every answer seen goes to `seen`. Gives up after
   * `limitMs` with the last answer in the error, so a test fails with a reason.
   */
  async function waitForBatch(
    batchId: string,
    done: (items: BatchItem[]) => boolean,
    seen: BatchItem[][] = [],
    limitMs = 20_000,
  ): Promise<BatchItem[]> {
    let last: unknown;
    return waitFor(
      async () => {
        const { status, body } = await pollBatch(batchId);
        last = body;
        if (status !== 200 || body.code !== 0) return false;
        seen.push(body.data.extract_result);
        return done(body.data.extract_result) && body.data.extract_result;
      },
      { what: `batch ${batchId}`, timeoutMs: limitMs, intervalMs: 10 },
    ).catch((err: unknown) => {
      throw new Error(`${errorMessage(err)}; last answer ${JSON.stringify(last)}`);
    });
  }

  return { call, createBatch, upload, pollBatch, waitForBatch };
}

export const settled = (items: BatchItem[]) =>
  items.every((item) => item.state === 'done' || item.state === 'failed');

export const item = (items: BatchItem[], name: string): BatchItem => {
  const found = items.find((entry) => entry.file_name === name);
  if (!found) throw new Error(`no ${name} in ${JSON.stringify(items)}`);
  return found;
};
