/**
 * The `local` engine: any server speaking the self-hosted MinerU task API (Pelita's
 * services/ocr-engine, or a real MinerU deployment). Submit (`POST /tasks`), poll
 * (`GET /tasks/{id}`) every `pollIntervalMs` at most `maxPolls` times (the seed's `MAX_WAIT_OCR`
 * × 2 s), then read the result (`GET /tasks/{id}/result`). The seed's fixed options are sent:
 * `lang_list=en`, `parse_method=auto`, formula and table handling on.
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage } from '@pelita/kit';
import type { ContentListEntry } from '@pelita/ocr-engine';
import {
  EngineFailedError,
  EngineTimeoutError,
  type OcrEngine,
  type OcrOutput,
  type OcrRequest,
  type OnEngineProgress,
} from './engine';
import { toSeedLists } from './mineru-content';

export interface LocalEngineOptions {
  baseUrl: string;
  pollIntervalMs: number;
  maxPolls: number;
  /** Called before each status poll (the worker counts them). */
  onPoll?: () => void;
  /** Time limit of one HTTP request to the engine. */
  requestTimeoutMs: number;
}

interface TaskStatus {
  task_id: string;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  error?: string | null;
  extract_progress?: { extracted_pages: number; total_pages: number };
}

interface TaskResult {
  results: Record<string, { content_list?: string | ContentListEntry[]; md_content?: string }>;
}

export function createLocalEngine(options: LocalEngineOptions): OcrEngine {
  const base = options.baseUrl.replace(/\/+$/, '');

  async function call(
    path: string,
    init: RequestInit = {},
    signal?: AbortSignal,
  ): Promise<Response> {
    const timeout = AbortSignal.timeout(options.requestTimeoutMs);
    try {
      return await fetch(`${base}${path}`, {
        ...init,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new EngineFailedError(`the local OCR engine is unreachable: ${errorMessage(err)}`, 502);
    }
  }

  async function submit(request: OcrRequest, signal?: AbortSignal): Promise<string> {
    const form = new FormData();
    form.append('files', new Blob([await readFile(request.path)]), request.name);
    const fields: Record<string, string> = {
      lang_list: 'en',
      backend: 'pipeline',
      parse_method: 'auto',
      formula_enable: 'true',
      table_enable: 'true',
      return_md: 'true',
      return_content_list: 'true',
      image_analysis: String(request.typeOcr === 'representasi'),
      max_images: String(request.representasiCount),
    };
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    const res = await call('/tasks', { method: 'POST', body: form }, signal);
    const text = await res.text();
    if (!res.ok) {
      throw new EngineFailedError(
        `the local OCR engine refused the file (${res.status}): ${text.slice(0, 300)}`,
        res.status,
      );
    }
    return (JSON.parse(text) as TaskStatus).task_id;
  }

  async function waitForResult(taskId: string, onProgress: OnEngineProgress, signal?: AbortSignal) {
    for (let poll = 0; poll < options.maxPolls; poll += 1) {
      if (poll > 0) await sleep(options.pollIntervalMs, undefined, signal ? { signal } : {});
      options.onPoll?.();
      const res = await call(`/tasks/${encodeURIComponent(taskId)}`, {}, signal);
      if (!res.ok) {
        throw new EngineFailedError(
          `the local OCR engine lost task ${taskId} (${res.status})`,
          res.status,
        );
      }
      const status = (await res.json()) as TaskStatus;
      if (status.extract_progress && status.extract_progress.total_pages > 0) {
        onProgress(status.extract_progress.extracted_pages, status.extract_progress.total_pages);
      }
      if (status.status === 'completed') return;
      if (status.status === 'failed') {
        throw new EngineFailedError(status.error ?? 'the local OCR engine failed the task', 502);
      }
    }
    throw new EngineTimeoutError();
  }

  async function readResult(taskId: string, signal?: AbortSignal): Promise<OcrOutput> {
    const res = await call(`/tasks/${encodeURIComponent(taskId)}/result`, {}, signal);
    if (res.status !== 200) {
      throw new EngineFailedError(
        `the local OCR engine has no result for ${taskId} (${res.status})`,
        res.status,
      );
    }
    const [file] = Object.values(((await res.json()) as TaskResult).results);
    const list = file?.content_list;
    // MinerU returns the content list as its file's JSON text; Pelita's engine does the same.
    const items =
      typeof list === 'string' ? (JSON.parse(list) as ContentListEntry[]) : (list ?? []);
    return toSeedLists(items);
  }

  return {
    name: 'local',
    async process(request, onProgress, signal) {
      const taskId = await submit(request, signal);
      onProgress(0, 0);
      await waitForResult(taskId, onProgress, signal);
      return readResult(taskId, signal);
    },
  };
}
