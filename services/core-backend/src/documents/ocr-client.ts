/**
 * The ocr-service's task API as the core backend uses it: submit a file or URL under a given
 * task id (the document's id), read a task's status, read its chunks. Failures of the
 * ocr-service become 502/503/504 HTTP errors; its own 4xx answers pass through with its code.
 */
import { openAsBlob } from 'node:fs';
import { HttpError } from '@pelita/kit';

export interface OcrOptions {
  processing: 'cloud' | 'local';
  typeOcr: 'ekstrak_only' | 'representasi';
}

export interface TaskStatus {
  status: 'pending' | 'processing' | 'done' | 'failed';
  stage: string;
  progress_pct: number;
  error?: string;
  error_code?: number;
}

export interface OcrChunk {
  id: string;
  chunk_number: number;
  content_list: Array<{ page: number; type: string; content: string }>;
  md_content_list: Array<{ page: number; markdown: string }>;
  output_pdf_file?: string;
}

export function createOcrClient(baseUrl: string, timeoutMs: number) {
  async function call(path: string, init: RequestInit = {}): Promise<Response> {
    try {
      return await fetch(`${baseUrl}${path}`, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError';
      throw new HttpError(
        timedOut ? 504 : 503,
        timedOut ? 'ocr_timeout' : 'ocr_unavailable',
        timedOut ? 'The OCR service did not answer in time' : 'The OCR service is unreachable',
        { cause: err },
      );
    }
  }

  /** The ocr-service's error, kept when it is the caller's fault (4xx), else a 502. */
  async function failure(res: Response): Promise<HttpError> {
    const body = (await res.json().catch(() => undefined)) as
      { error?: { code?: string; message?: string } } | undefined;
    const message = body?.error?.message ?? `the OCR service answered ${res.status}`;
    if (res.status >= 400 && res.status < 500) {
      return new HttpError(res.status, body?.error?.code ?? 'ocr_refused', message);
    }
    if (res.status === 503 || res.status === 429) {
      return new HttpError(503, 'ocr_unavailable', `The OCR service is busy: ${message}`);
    }
    return new HttpError(502, 'ocr_error', `The OCR service failed: ${message}`);
  }

  const query = (taskId: string, options: OcrOptions, extra: Record<string, string> = {}) =>
    new URLSearchParams({
      task_id: taskId,
      processing: options.processing,
      type_ocr: options.typeOcr,
      ...extra,
    }).toString();

  return {
    async submitFile(taskId: string, file: { path: string; name: string }, options: OcrOptions) {
      const form = new FormData();
      form.append('file', await openAsBlob(file.path), file.name);
      const res = await call(`/api/v1/pdfs?${query(taskId, options)}`, {
        method: 'POST',
        body: form,
      });
      if (!res.ok) throw await failure(res);
    },

    async submitUrl(taskId: string, url: string, options: OcrOptions) {
      const res = await call(`/api/v1/pdfs?${query(taskId, options, { url_file: url })}`, {
        method: 'POST',
      });
      if (!res.ok) throw await failure(res);
    },

    /** The task's status; undefined when the ocr-service has no such task. */
    async status(taskId: string): Promise<TaskStatus | undefined> {
      const res = await call(`/api/v1/tasks/${encodeURIComponent(taskId)}/status`);
      if (res.status === 404) return undefined;
      if (!res.ok) throw await failure(res);
      return (await res.json()) as TaskStatus;
    },

    /** Every chunk of a finished task, in order. */
    async chunks(taskId: string): Promise<OcrChunk[]> {
      const chunks: OcrChunk[] = [];
      for (let page = 1; ; page++) {
        const res = await call(`/api/v1/pdfs/${encodeURIComponent(taskId)}?page=${page}&size=100`);
        if (res.status === 404) return chunks;
        if (!res.ok) throw await failure(res);
        const body = (await res.json()) as { documents: OcrChunk[]; total_pages: number };
        chunks.push(...body.documents);
        if (page >= body.total_pages || body.documents.length === 0) return chunks;
      }
    },

    /** A freshly signed link to the task's searchable PDF; null when it has none (or is gone). */
    async pdfLink(taskId: string): Promise<string | null> {
      const res = await call(`/api/v1/pdfs/${encodeURIComponent(taskId)}?page=1&size=1`);
      if (res.status === 404) return null;
      if (!res.ok) throw await failure(res);
      const body = (await res.json()) as { documents: OcrChunk[] };
      return body.documents[0]?.output_pdf_file ?? null;
    },
  };
}

export type OcrClient = ReturnType<typeof createOcrClient>;
