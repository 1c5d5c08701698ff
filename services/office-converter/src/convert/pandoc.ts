/**
 * The seed's "universal converter" step, tried when LibreOffice fails or times out: pandoc reads
 * the document and writes its text (tables as text grids), which pdf-lib lays out as a PDF.
 * Pandoc shares no code with LibreOffice, so a document that breaks or hangs one is read anew by
 * the other. The document is untrusted: `--sandbox` confines pandoc's reads to the input file and
 * forbids network fetches, an empty data directory keeps it from loading user templates or Lua,
 * the Haskell heap is capped, and the run's process group is killed at the time limit.
 */
import { mkdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { runTool } from '@pelita/kit';
import { createDeadline, MAX_TEXT_CHARS, textToPdf } from './text-pdf';

/** Pandoc 2.17's readers for the converter's office inputs (it reads no .doc, .xls, .ppt, .pptx, .xlsx). */
const READERS: Record<string, string> = {
  '.docx': 'docx',
  '.odt': 'odt',
  '.rtf': 'rtf',
  '.csv': 'csv',
};

/** Heap pandoc may use: a hostile document fails the run instead of swelling the pod. */
const MAX_HEAP = '512m';
/** Text pandoc may print; more fails the run (the PDF keeps `MAX_TEXT_CHARS` anyway). */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

export interface PandocOptions {
  bin: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Whether pandoc can read a file of this name. */
export function pandocReads(name: string): boolean {
  return extname(name).toLowerCase() in READERS;
}

/** `input` (named with its real extension) as a text PDF at `output`, inside `workDir`. */
export async function convertWithPandoc(
  input: string,
  workDir: string,
  output: string,
  options: PandocOptions,
): Promise<string> {
  const reader = READERS[extname(input).toLowerCase()];
  if (!reader) throw new Error(`pandoc cannot read ${extname(input)} files`);
  const deadline = createDeadline('pandoc', options.timeoutMs, options.signal);
  const dataDir = join(workDir, 'pandoc-data');
  await mkdir(dataDir, { recursive: true });
  const text = await runTool(
    options.bin,
    [
      '+RTS',
      `-M${MAX_HEAP}`,
      '-RTS',
      '--sandbox',
      `--data-dir=${dataDir}`,
      `--from=${reader}`,
      '--to=plain',
      '--wrap=none',
      '--eol=lf',
      input,
    ],
    {
      timeoutMs: options.timeoutMs,
      maxOutputBytes: MAX_OUTPUT_BYTES,
      env: { HOME: workDir },
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  const kept = text.slice(0, MAX_TEXT_CHARS);
  const paragraphs = kept
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.trimEnd())
    .filter((paragraph) => paragraph.trim() !== '');
  if (paragraphs.length === 0) throw new Error('pandoc found no text in the document');
  return textToPdf(paragraphs, kept.length < text.length, output, deadline);
}
