/**
 * Inputs to PDF, in the seed's order of attempts: PDFs pass through, PNG and JPEG are laid on a
 * page by pdf-lib, other images and office files go through LibreOffice, an office file that
 * LibreOffice cannot convert goes to pandoc (the formats it reads), and a `.docx` that neither
 * converts falls back to its text. LibreOffice and pandoc runs are bounded: at most
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
import { convertWithPandoc, pandocReads } from './pandoc';
import { imageToPdf, mergePdfs, pdfPageCount } from './pdf-files';

export interface ConverterOptions {
  sofficeBin: string;
  pandocBin: string;
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

  /** A pandoc run takes a conversion slot like a LibreOffice run: both are the heavy work. */
  function pandoc(named: string, dir: string, signal: AbortSignal): Promise<string> {
    return slots.run(
      () =>
        timed('pandoc', () =>
          convertWithPandoc(named, dir, join(dir, 'pandoc.pdf'), {
            bin: options.pandocBin,
            timeoutMs: options.timeoutMs,
            signal,
          }),
        ),
      signal,
    );
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
    return officeToPdf(input.name, named, dir, logger, signal);
  }

  /**
   * The seed's order of attempts for an office file: LibreOffice, then pandoc (for the formats it
   * reads), then for `.docx` its text. Each runs under `timeoutMs`; a run that fails or times out
   * hands the file to the next. When all fail the answer is 504 if one of them ran out of time,
   * else 422, naming each attempt's failure.
   */
  async function officeToPdf(
    name: string,
    named: string,
    dir: string,
    logger: Logger,
    signal: AbortSignal,
  ): Promise<string> {
    const failures: string[] = [];
    let timedOut = false;
    const attempt = async (label: string, run: () => Promise<string>): Promise<string | null> => {
      try {
        return await run();
      } catch (err) {
        if (signal.aborted) throw err;
        timedOut ||= err instanceof ToolError && err.failure === 'timeout';
        failures.push(`${label}: ${errorMessage(err)}`);
        return null;
      }
    };
    const viaLibreOffice = await attempt('LibreOffice', () => libreOffice(named, dir, signal));
    if (viaLibreOffice) return viaLibreOffice;
    if (pandocReads(name)) {
      logger.warn({ file: name, err: failures.at(-1) }, 'LibreOffice failed; trying pandoc');
      const viaPandoc = await attempt('pandoc', () => pandoc(named, dir, signal));
      if (viaPandoc) return viaPandoc;
    }
    if (extname(name).toLowerCase() === '.docx') {
      logger.warn({ file: name, err: failures.join('; ') }, 'converting the .docx text instead');
      return timed('docx-text', () =>
        docxToTextPdf(named, join(dir, 'text.pdf'), { timeoutMs: options.timeoutMs, signal }),
      ).catch((fallback: unknown) => {
        if (fallback instanceof ToolError && fallback.failure === 'timeout') {
          throw new HttpError(
            504,
            'conversion_timeout',
            `The text of ${name} could not be read within ${options.timeoutMs} ms`,
          );
        }
        if (signal.aborted) throw fallback;
        throw new HttpError(
          422,
          'conversion_failed',
          `${name} could not be converted: ${failures.join('; ')}; text fallback: ${errorMessage(fallback)}`,
        );
      });
    }
    if (timedOut) {
      throw new HttpError(
        504,
        'conversion_timeout',
        `${name} was not converted within ${options.timeoutMs} ms: ${failures.join('; ')}`,
      );
    }
    throw new HttpError(
      422,
      'conversion_failed',
      `${name} could not be converted: ${failures.join('; ')}`,
    );
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
