/**
 * The last resort for `.docx` when LibreOffice cannot convert it: the text of its paragraphs
 * (`word/document.xml` inside the zip, read with `unzip`) laid out as a plain PDF with pdf-lib.
 * Formatting is lost; the words, which is what OCR and search need, are kept.
 */
import { writeFile } from 'node:fs/promises';
import { setImmediate } from 'node:timers/promises';
import { runTool, ToolError } from '@pelita/kit';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { scanParagraphs, type ParagraphScan } from './docx-paragraphs';

const PAGE = { width: 595, height: 842, margin: 56 };
const FONT_SIZE = 11;
const LINE_HEIGHT = 15;

/** Characters read at most; the rest of a longer document is left out, and the PDF says so. */
const MAX_TEXT_CHARS = 1_000_000;
/** Lines laid out at most (about 220 full pages, a few seconds of pdf-lib). */
const MAX_LINES = 10_000;

/**
 * The whole fallback (unzip, reading the text, laying it out) runs under one time limit, the
 * LibreOffice runs' own: past it, or when the client leaves, it stops with the kit's `ToolError`
 * (`timeout`, `cancelled`), as a tool run would.
 */
export async function docxToTextPdf(
  docx: string,
  output: string,
  limits: { timeoutMs: number; signal?: AbortSignal },
): Promise<string> {
  const deadline = createDeadline(limits.timeoutMs, limits.signal);
  const xml = await runTool('unzip', ['-p', docx, 'word/document.xml'], {
    timeoutMs: deadline.remainingMs(),
    ...(limits.signal ? { signal: limits.signal } : {}),
  });
  const scan = await readParagraphs(xml, MAX_TEXT_CHARS, deadline);
  if (scan.paragraphs.length === 0) throw new Error('the .docx has no readable text');
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const width = PAGE.width - 2 * PAGE.margin;
  let page = doc.addPage([PAGE.width, PAGE.height]);
  let y = PAGE.height - PAGE.margin;
  const drawLine = async (line: string): Promise<void> => {
    if (y < PAGE.margin) {
      await deadline.pause();
      page = doc.addPage([PAGE.width, PAGE.height]);
      y = PAGE.height - PAGE.margin;
    }
    page.drawText(line, { x: PAGE.margin, y, size: FONT_SIZE, font });
    y -= LINE_HEIGHT;
  };
  let lines = 0;
  let truncated = scan.truncated;
  paragraphs: for (const paragraph of scan.paragraphs) {
    for (const line of wrap(
      toWinAnsi(paragraph),
      (text) => font.widthOfTextAtSize(text, FONT_SIZE),
      width,
    )) {
      if (++lines > MAX_LINES) {
        truncated = true;
        break paragraphs;
      }
      await drawLine(line);
    }
    y -= LINE_HEIGHT / 2;
  }
  if (truncated) await drawLine('[The document is longer: the rest of its text is left out.]');
  await writeFile(output, await doc.save());
  return output;
}

/** `scanParagraphs` in steps, letting other requests run and checking the deadline between them. */
async function readParagraphs(
  xml: string,
  maxChars: number,
  deadline: Deadline,
): Promise<ParagraphScan> {
  const scan = scanParagraphs(xml, maxChars);
  for (;;) {
    const step = scan.next();
    if (step.done) return step.value;
    await deadline.pause();
  }
}

interface Deadline {
  remainingMs(): number;
  /** Lets the event loop run, then throws if the time is up or the client left. */
  pause(): Promise<void>;
}

function createDeadline(timeoutMs: number, signal?: AbortSignal): Deadline {
  const end = Date.now() + timeoutMs;
  return {
    remainingMs: () => Math.max(1, end - Date.now()),
    async pause() {
      await setImmediate();
      if (signal?.aborted) throw new ToolError('docx-text cancelled', 'docx-text', 'cancelled');
      if (Date.now() > end) {
        throw new ToolError(`docx-text timed out after ${timeoutMs} ms`, 'docx-text', 'timeout');
      }
    },
  };
}

/** Greedy word wrap to `maxWidth`. */
export function wrap(text: string, widthOf: (text: string) => number, maxWidth: number): string[] {
  const lines: string[] = [];
  for (const source of text.split('\n')) {
    let line = '';
    for (const word of source.replace(/\t/g, '    ').split(/ +/)) {
      const candidate = line === '' ? word : `${line} ${word}`;
      if (line !== '' && widthOf(candidate) > maxWidth) {
        lines.push(line);
        line = word;
      } else {
        line = candidate;
      }
    }
    lines.push(line);
  }
  return lines;
}

// The standard fonts encode WinAnsi only: other characters would make pdf-lib throw.
function toWinAnsi(text: string): string {
  return text.replace(/[^\x20-\x7e\xa0-\xff\n\t]/g, '?');
}
