/**
 * Inputs to PDF, in the seed's order of attempts: PDFs pass through, PNG and JPEG are laid on a
 * page by pdf-lib, other images and office files go through LibreOffice, and a `.docx` that
 * LibreOffice cannot convert falls back to its text. LibreOffice runs are bounded: at most
 * `maxConcurrent` at once and `maxQueued` waiting; beyond that a request is refused, not queued.
 */
import { copyFile, link, mkdtemp } from 'node:fs/promises';
import { extname, join } from 'node:path';
import {
  createConcurrencyLimit,
  errorMessage,
  HttpError,
  inputKind,
  inSpan,
  type Logger,
  ToolError,
  UnsupportedInputError,
} from '@pelita/kit';
import type { ConverterMetrics, ConversionMethod } from './converter-metrics';
import { docxToTextPdf } from './docx-text';
import { convertWithLibreOffice } from './libreoffice';
import { imageToPdf, mergePdfs, pdfPageCount } from './pdf-files';

export interface ConverterOptions {
  sofficeBin: string;
  timeoutMs: number;
  maxConcurrent: number;
  maxQueued: number;
  metrics: ConverterMetrics;
}

export interface Input {
  path: string;
  name: string;
}

export interface Converter {
  /** Throws 429 when the LibreOffice queue is full: checked before any work starts. */
  admit(): void;
  /** `input` as a PDF written under `workDir`; resolves with its path. */
  toPdf(input: Input, workDir: string, logger: Logger, signal: AbortSignal): Promise<string>;
  /** Every input converted, then joined in order into one PDF under `workDir`. */
  merge(
    inputs: Input[],
    workDir: string,
    logger: Logger,
    signal: AbortSignal,
  ): Promise<{ path: string; pages: number }>;
}

export function createConverter(options: ConverterOptions): Converter {
  const slots = createConcurrencyLimit(options.maxConcurrent);
  const { metrics } = options;

  function admit(): void {
    if (slots.active >= options.maxConcurrent && slots.waiting >= options.maxQueued) {
      throw new HttpError(
        429,
        'too_many_conversions',
        `${slots.waiting} conversions are waiting already; try again shortly`,
      );
    }
  }

  /**
   * One conversion, measured and traced: a span `convert {method}` of its own, so a trace shows
   * the conversion apart from the wait for a LibreOffice slot before it.
   */
  async function timed<T>(method: ConversionMethod, work: () => Promise<T>): Promise<T> {
    const end = metrics.duration.startTimer({ method });
    try {
      const result = await inSpan(`convert ${method}`, work, { 'conversion.method': method });
      metrics.conversions.inc({ method, outcome: 'ok' });
      return result;
    } catch (err) {
      metrics.conversions.inc({ method, outcome: 'failed' });
      throw err;
    } finally {
      end();
    }
  }

  async function libreOffice(input: string, workDir: string, signal: AbortSignal): Promise<string> {
    metrics.waiting.set(slots.waiting + 1);
    try {
      return await slots.run(() => {
        metrics.waiting.set(slots.waiting);
        return timed('libreoffice', () =>
          convertWithLibreOffice(input, workDir, {
            bin: options.sofficeBin,
            timeoutMs: options.timeoutMs,
            signal,
          }),
        );
      }, signal);
    } finally {
      metrics.waiting.set(slots.waiting);
    }
  }

  async function toPdf(
    input: Input,
    workDir: string,
    logger: Logger,
    signal: AbortSignal,
  ): Promise<string> {
    const kind = await inputKind(input.path, input.name).catch((err: unknown) => {
      if (err instanceof UnsupportedInputError)
        throw new HttpError(400, 'unsupported_file_type', err.message);
      throw err;
    });
    if (kind === 'pdf') {
      await pdfPageCount(input.path).catch((err: unknown) => {
        throw new HttpError(
          422,
          'invalid_pdf',
          `${input.name} is not a readable PDF: ${errorMessage(err)}`,
        );
      });
      return input.path;
    }
    // A PDF passes through; anything converted gets a directory of its own in the workspace.
    const dir = await mkdtemp(join(workDir, 'convert-'));
    if (kind === 'png' || kind === 'jpeg') {
      return timed('pdf-lib', () => imageToPdf(input.path, kind, join(dir, 'image.pdf'))).catch(
        (err: unknown) => {
          throw new HttpError(
            422,
            'conversion_failed',
            `${input.name} could not be read: ${errorMessage(err)}`,
          );
        },
      );
    }
    // LibreOffice picks its import filter by extension: give it the file under its real one.
    const named = join(dir, `input${extname(input.name).toLowerCase()}`);
    await linkOrCopy(input.path, named);
    try {
      return await libreOffice(named, dir, signal);
    } catch (err) {
      if (err instanceof ToolError && err.failure === 'timeout') {
        throw new HttpError(
          504,
          'conversion_timeout',
          `LibreOffice did not convert ${input.name} within ${options.timeoutMs} ms`,
        );
      }
      if (signal.aborted) throw err;
      if (extname(input.name).toLowerCase() !== '.docx') {
        throw new HttpError(
          422,
          'conversion_failed',
          `${input.name} could not be converted: ${errorMessage(err)}`,
        );
      }
      logger.warn(
        { file: input.name, err: errorMessage(err) },
        'LibreOffice failed; converting the .docx text instead',
      );
      return timed('docx-text', () =>
        docxToTextPdf(named, join(dir, 'text.pdf'), { timeoutMs: options.timeoutMs, signal }),
      ).catch((fallback: unknown) => {
        if (fallback instanceof ToolError && fallback.failure === 'timeout') {
          throw new HttpError(
            504,
            'conversion_timeout',
            `The text of ${input.name} could not be read within ${options.timeoutMs} ms`,
          );
        }
        if (signal.aborted) throw fallback;
        throw new HttpError(
          422,
          'conversion_failed',
          `${input.name} could not be converted: ${errorMessage(err)}; text fallback: ${errorMessage(fallback)}`,
        );
      });
    }
  }

  return {
    admit,
    toPdf,
    async merge(inputs, workDir, logger, signal) {
      const pdfs: string[] = [];
      for (const input of inputs) pdfs.push(await toPdf(input, workDir, logger, signal));
      const path = join(workDir, 'merged.pdf');
      const { pages } = await timed('merge', () => mergePdfs(pdfs, path));
      return { path, pages };
    },
  };
}

async function linkOrCopy(from: string, to: string): Promise<void> {
  await link(from, to).catch(() => copyFile(from, to));
}
