/**
 * The `cloud` engine: MinerU's cloud task API (v4). Ask for an upload URL (`POST
 * /file-urls/batch`), `PUT` the file there (no content type: the URL is signed without one),
 * poll the batch (`GET /extract-results/batch/{id}`) every `pollIntervalMs` at most `maxPolls`
 * times, then download the result archive and read its content list. MinerU answers business
 * errors with HTTP 200 and a non-zero `code`; those are failures too.
 *
 * The seed's options, as far as the cloud API has them (`cloudOptions`, `keepImages`): its fixed
 * `lang=en`, `formula_enable`, `table_enable` become `language: "en"`, `enable_formula`,
 * `enable_table`; its `parse_method=auto` is the pipeline model with `is_ocr` off (MinerU then
 * decides per document whether to OCR, as `auto` does; on, it would OCR every page). The cloud
 * API describes no images, so `type_ocr` and `representasi_count` act on the result: `ekstrak_only`
 * keeps no image blocks, `representasi` keeps the first `representasi_count` (with their
 * captions), as the local engine's image analysis does.
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage } from '@pelita/kit';
import type { ContentListEntry } from '@pelita/ocr-engine';
import {
  EngineFailedError,
  EngineTimeoutError,
  type OcrEngine,
  type OcrRequest,
  type OnEngineProgress,
} from './engine';
import { toSeedLists } from './mineru-content';
import { zipEntries } from './zip-entries';

export interface CloudEngineOptions {
  /** API base, e.g. `https://mineru.net/api/v4`. */
  baseUrl: string;
  apiKey: string;
  pollIntervalMs: number;
  maxPolls: number;
  /** Called before each status poll (the worker counts them). */
  onPoll?: () => void;
  requestTimeoutMs: number;
  /** Time limit of the archive download. */
  downloadTimeoutMs: number;
  /** Entries the result archive may list, and bytes its content list may inflate to. */
  maxResultEntries: number;
  maxResultBytes: number;
}

interface Envelope<T> {
  code?: number | string;
  msg?: string;
  msgCode?: string;
  data?: T;
}

interface FileResult {
  file_name: string;
  state: string;
  err_msg?: string;
  err_code?: number | string;
  full_zip_url?: string;
  extract_progress?: { extracted_pages: number; total_pages: number };
}

/**
 * The seed's fixed options in MinerU's cloud terms (`lang=en`, `parse_method=auto`, formula and
 * table handling on): per file, and per batch.
 */
const FILE_OPTIONS = { is_ocr: false } as const;
const BATCH_OPTIONS = {
  model_version: 'pipeline',
  language: 'en',
  enable_formula: true,
  enable_table: true,
} as const;

/**
 * `type_ocr` on the cloud's result: `ekstrak_only` drops the image blocks, `representasi` keeps
 * the first `representasiCount` of them, in reading order; every other block stays.
 */
export function keepImages(
  items: readonly ContentListEntry[],
  request: Pick<OcrRequest, 'typeOcr' | 'representasiCount'>,
): ContentListEntry[] {
  const limit = request.typeOcr === 'representasi' ? request.representasiCount : 0;
  let images = 0;
  return items.filter((item) => item.type !== 'image' || ++images <= limit);
}

export function createCloudEngine(options: CloudEngineOptions): OcrEngine {
  const base = options.baseUrl.replace(/\/+$/, '');

  async function send(url: string, init: RequestInit, timeoutMs: number, signal?: AbortSignal) {
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      return await fetch(url, {
        ...init,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new EngineFailedError(`the cloud OCR engine is unreachable: ${errorMessage(err)}`, 502);
    }
  }

  async function api<T>(path: string, init: RequestInit, signal?: AbortSignal): Promise<T> {
    const res = await send(
      `${base}${path}`,
      { ...init, headers: { ...init.headers, authorization: `Bearer ${options.apiKey}` } },
      options.requestTimeoutMs,
      signal,
    );
    const text = await res.text();
    let envelope: Envelope<T>;
    try {
      envelope = JSON.parse(text) as Envelope<T>;
    } catch {
      throw new EngineFailedError(
        `the cloud OCR engine answered ${res.status} without JSON`,
        res.status,
      );
    }
    if (res.status === 401 || envelope.msgCode) {
      throw new EngineFailedError(
        `the cloud OCR engine refused the key: ${envelope.msg ?? res.status}`,
        401,
      );
    }
    if (!res.ok || envelope.code !== 0 || envelope.data === undefined) {
      throw new EngineFailedError(
        `the cloud OCR engine answered ${res.status} (code ${String(envelope.code)}): ${envelope.msg ?? ''}`,
        envelope.code ?? res.status,
      );
    }
    return envelope.data;
  }

  return {
    name: 'cloud',
    async process(request: OcrRequest, onProgress: OnEngineProgress, signal?: AbortSignal) {
      const batch = await api<{ batch_id: string; file_urls: string[] }>(
        '/file-urls/batch',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            files: [{ name: request.name, ...FILE_OPTIONS }],
            ...BATCH_OPTIONS,
          }),
        },
        signal,
      );
      const uploadUrl = batch.file_urls[0];
      if (!uploadUrl) throw new EngineFailedError('the cloud OCR engine gave no upload URL', 502);
      const upload = await send(
        uploadUrl,
        { method: 'PUT', body: await readFile(request.path) },
        options.downloadTimeoutMs,
        signal,
      );
      await upload.body?.cancel();
      if (!upload.ok)
        throw new EngineFailedError(
          `the upload to the cloud OCR engine failed (${upload.status})`,
          upload.status,
        );
      onProgress(0, 0);

      let done: FileResult | undefined;
      for (let poll = 0; poll < options.maxPolls && !done; poll += 1) {
        if (poll > 0) await sleep(options.pollIntervalMs, undefined, signal ? { signal } : {});
        options.onPoll?.();
        const results = await api<{ extract_result: FileResult[] }>(
          `/extract-results/batch/${encodeURIComponent(batch.batch_id)}`,
          { method: 'GET' },
          signal,
        ).catch((err: unknown) => {
          // A poll that fails is retried on the next turn; the budget still bounds the wait.
          if (err instanceof EngineFailedError && poll + 1 < options.maxPolls) return undefined;
          throw err;
        });
        const file = results?.extract_result[0];
        if (!file) continue;
        if (file.extract_progress && file.extract_progress.total_pages > 0) {
          onProgress(file.extract_progress.extracted_pages, file.extract_progress.total_pages);
        }
        if (file.state === 'failed') {
          throw new EngineFailedError(
            file.err_msg || 'the cloud OCR engine failed the task',
            file.err_code ?? 502,
          );
        }
        if (file.state === 'done') done = file;
      }
      if (!done) throw new EngineTimeoutError();
      if (!done.full_zip_url)
        throw new EngineFailedError('the cloud OCR engine gave no result archive', 502);

      const download = await send(
        done.full_zip_url,
        { method: 'GET' },
        options.downloadTimeoutMs,
        signal,
      );
      if (!download.ok)
        throw new EngineFailedError(
          `the result archive could not be downloaded (${download.status})`,
          download.status,
        );
      let archive: Buffer;
      try {
        archive = Buffer.from(await download.arrayBuffer());
      } catch (err) {
        if (signal?.aborted) throw err;
        throw new EngineFailedError(
          `the result archive download broke off: ${errorMessage(err)}`,
          502,
        );
      }
      let files: Map<string, Buffer>;
      try {
        files = zipEntries(archive, {
          maxEntries: options.maxResultEntries,
          maxInflatedBytes: options.maxResultBytes,
          // MinerU names the content list after the archive, not after the file; the rest
          // (images, markdown, layout) is not needed, so not inflated.
          wanted: (name) => name.endsWith('_content_list.json'),
        });
      } catch (err) {
        throw new EngineFailedError(errorMessage(err), 502);
      }
      const contentList = [...files.values()][0];
      if (!contentList) throw new EngineFailedError('the result archive has no content list', 502);
      const items = JSON.parse(contentList.toString('utf8')) as ContentListEntry[];
      return toSeedLists(keepImages(items, request));
    },
  };
}
