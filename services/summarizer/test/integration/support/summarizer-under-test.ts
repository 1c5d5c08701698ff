/**
 * Starts the summarizer on a free loopback port against a model server URL (usually the LLM
 * stand-in), with its logs captured and its own temporary directory; plus form helpers.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import { createSummarizerService, settingsSchema, type SummarizerService } from '../../../src';

export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  entries(): Array<Record<string, any>> {
    return this.lines.map((line) => JSON.parse(line) as Record<string, any>);
  }
}

export interface SummarizerUnderTest {
  url: string;
  logs: LogCapture;
  tempDir: string;
  service: SummarizerService;
  /** Entries left in the temporary directory (should be none between requests). */
  leftovers: () => Promise<string[]>;
  metrics: () => Promise<string>;
  stop: () => Promise<void>;
}

export async function startSummarizer(env: Record<string, string>): Promise<SummarizerUnderTest> {
  const tempDir = await mkdtemp(join(tmpdir(), 'summarizer-test-'));
  const settings = loadConfig(settingsSchema, {
    MODEL_LOCAL: 'pelita-stub',
    TEMP_DIR: tempDir,
    LOG_LEVEL: 'debug',
    ...env,
  });
  const logs = new LogCapture();
  const logger = createLogger({ name: 'summarizer', level: settings.LOG_LEVEL, destination: logs });
  const service = createSummarizerService(settings, logger);
  const running: RunningServer = await serveInProcess(service, logger, { shutdownTimeoutMs: 1000 });
  return {
    url: running.url,
    logs,
    tempDir,
    service,
    leftovers: () => readdir(tempDir),
    metrics: async () => (await fetch(`${running.url}/metrics`)).text(),
    stop: async () => {
      await running.stop();
      await rm(tempDir, { recursive: true, force: true });
    },
  };
}

export interface FormFields {
  chunk_size?: string | number;
  target_context?: string | number;
  enable_ner?: string | boolean;
}

export function textForm(text: string | Uint8Array, fields: FormFields = {}, name = 'doc.txt') {
  const form = new FormData();
  form.append('file', new Blob([text]), name);
  for (const [key, value] of Object.entries(fields)) form.append(key, String(value));
  return form;
}

export interface Download {
  status: number;
  headers: Headers;
  body: any;
}

export async function postForm(url: string, form: FormData): Promise<Download> {
  const res = await fetch(url, { method: 'POST', body: form });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body };
}

/** `count` sentences of ten words each; sentence `i` carries the marker `s<i>`. */
export function sentences(count: number, prefix = 's'): string {
  const out: string[] = [];
  for (let i = 0; i < count; i += 1) {
    out.push(`Marker ${prefix}${i} says the river flows past seven old houses.`);
  }
  return out.join(' ');
}
