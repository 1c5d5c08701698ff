/**
 * A task's inputs made into the one PDF the engine reads (the seed's conversion rules): staged
 * uploads fetched from object storage, URLs downloaded under the SSRF rules, office files and
 * images converted, several inputs merged in their order. Everything lands in the task's own
 * directory, which the pipeline removes.
 */
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage, inputKind, UnsupportedInputError } from '@pelita/kit';
import type { ConverterClient } from '../conversion/converter-client';
import type { OcrMetrics } from '../ocr-metrics';
import type { DocumentStore } from '../storage/document-store';
import type { TaskInput } from '../tasks/task-job';
import { TaskError } from './task-failure';

/** Downloads `url` to `dest`; resolves with the file's name (Content-Disposition or URL path). */
export type Download = (
  url: string,
  dest: string,
  signal: AbortSignal,
) => Promise<{ fileName: string }>;

export interface TaskInputDeps {
  documents: DocumentStore;
  /** Unset: only PDFs can be processed (no office converter configured). */
  converter: ConverterClient | undefined;
  download: Download;
  metrics: OcrMetrics;
}

/** A name safe as a file name whose extension still tells the type. */
export function safeFileName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '');
  return (cleaned || 'document').slice(-100);
}

async function fetchInput(
  input: TaskInput,
  index: number,
  dir: string,
  deps: TaskInputDeps,
  signal: AbortSignal,
): Promise<string> {
  if (input.kind === 'upload') {
    const path = join(dir, `${index}-${safeFileName(input.name)}`);
    await deps.documents.getFile(input.key, path).catch((err: unknown) => {
      throw new TaskError(
        `the uploaded file could not be read from object storage: ${errorMessage(err)}`,
        503,
      );
    });
    return path;
  }
  const partial = join(dir, `${index}-download`);
  const { fileName } = await deps.download(input.url, partial, signal);
  const path = join(dir, `${index}-${safeFileName(fileName)}`);
  await rename(partial, path);
  return path;
}

function requireConverter(deps: TaskInputDeps): ConverterClient {
  if (!deps.converter)
    throw new TaskError(
      'office files, images and merges need the office converter (URL_CONVERTER)',
      503,
    );
  return deps.converter;
}

/** The PDF the engine gets, at `{dir}/document.pdf` or the single input itself. */
export async function prepareDocument(
  inputs: TaskInput[],
  dir: string,
  deps: TaskInputDeps,
  signal: AbortSignal,
): Promise<string> {
  const files: string[] = [];
  for (const [index, input] of inputs.entries())
    files.push(await fetchInput(input, index, dir, deps, signal));

  const output = join(dir, 'document.pdf');
  if (files.length > 1) {
    const stop = deps.metrics.conversionDuration.startTimer({ operation: 'merge' });
    await requireConverter(deps).merge(files, output, signal).finally(stop);
    return output;
  }
  const [file] = files as [string];
  const kind = await inputKind(file, file).catch((err: unknown) => {
    if (err instanceof UnsupportedInputError) throw new TaskError(err.message, 415);
    throw err;
  });
  if (kind === 'pdf') return file;
  const stop = deps.metrics.conversionDuration.startTimer({ operation: 'convert' });
  await requireConverter(deps).toPdf(file, output, signal).finally(stop);
  return output;
}
