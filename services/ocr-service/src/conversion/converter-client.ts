/**
 * The office converter as the worker uses it: office files and images to PDF before OCR, and
 * several inputs merged into one PDF. The answer is written to disk (it can be large); the
 * converter's own errors (`{error: {code, message}}`) are passed on in the message.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { errorMessage } from '@pelita/kit';

export interface ConverterClientOptions {
  baseUrl: string;
  /** Time limit of one conversion request (the converter's own limit is per LibreOffice run). */
  timeoutMs: number;
}

export class ConversionError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ConversionError';
  }
}

export interface ConverterClient {
  /** `input` (named by its path's file name) to the PDF at `output`. */
  toPdf(input: string, output: string, signal?: AbortSignal): Promise<void>;
  /** `inputs`, in order, joined into the PDF at `output`; resolves with its page count. */
  merge(inputs: string[], output: string, signal?: AbortSignal): Promise<number>;
}

export function createConverterClient(options: ConverterClientOptions): ConverterClient {
  const base = options.baseUrl.replace(/\/+$/, '');

  async function post(
    path: string,
    field: string,
    inputs: string[],
    output: string,
    signal?: AbortSignal,
  ) {
    const form = new FormData();
    for (const input of inputs)
      form.append(field, new Blob([await readFile(input)]), basename(input));
    const timeout = AbortSignal.timeout(options.timeoutMs);
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method: 'POST',
        body: form,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new ConversionError(`the office converter is unreachable: ${errorMessage(err)}`, 502);
    }
    if (!res.ok) {
      const text = await res.text();
      let message = text.slice(0, 300);
      try {
        message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
      } catch {
        // not JSON: keep the text
      }
      throw new ConversionError(`conversion failed (${res.status}): ${message}`, res.status);
    }
    await writeFile(output, Buffer.from(await res.arrayBuffer()));
    return res;
  }

  return {
    async toPdf(input, output, signal) {
      await post('/convert', 'file', [input], output, signal);
    },
    async merge(inputs, output, signal) {
      const res = await post('/merge', 'files', inputs, output, signal);
      return Number(res.headers.get('x-page-count') ?? 0);
    },
  };
}
