/**
 * Plain text laid out as a PDF with pdf-lib, for the converters that only recover a document's
 * words (pandoc's plain text, the `.docx` text fallback): formatting is lost, the words that OCR
 * and search need are kept. Layout pauses between pages under a deadline, so a long text never
 * holds the event loop past the conversion's time limit.
 */
import { writeFile } from 'node:fs/promises';
import { setImmediate } from 'node:timers/promises';
import { ToolError } from '@pelita/kit';
import { PDFDocument, StandardFonts } from 'pdf-lib';

const PAGE = { width: 595, height: 842, margin: 56 };
const FONT_SIZE = 11;
const LINE_HEIGHT = 15;

/** Characters read at most; the rest of a longer document is left out, and the PDF says so. */
export const MAX_TEXT_CHARS = 1_000_000;
/** Lines laid out at most (about 220 full pages, a few seconds of pdf-lib). */
const MAX_LINES = 10_000;

export interface Deadline {
  remainingMs(): number;
  /** Lets the event loop run, then throws if the time is up or the client left. */
  pause(): Promise<void>;
}

/**
 * One time limit over several steps: past it, or when the client leaves, `pause` throws the
 * kit's `ToolError` (`timeout`, `cancelled`) named for `tool`, as a tool run would.
 */
export function createDeadline(tool: string, timeoutMs: number, signal?: AbortSignal): Deadline {
  const end = Date.now() + timeoutMs;
  return {
    remainingMs: () => Math.max(1, end - Date.now()),
    async pause() {
      await setImmediate();
      if (signal?.aborted) throw new ToolError(`${tool} cancelled`, tool, 'cancelled');
      if (Date.now() > end) {
        throw new ToolError(`${tool} timed out after ${timeoutMs} ms`, tool, 'timeout');
      }
    },
  };
}

/**
 * `paragraphs` laid out on A4 pages into `output`; `truncated` (or more than the line cap) ends
 * the PDF with a line saying the rest was left out.
 */
export async function textToPdf(
  paragraphs: string[],
  truncated: boolean,
  output: string,
  deadline: Deadline,
): Promise<string> {
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
  let cut = truncated;
  paragraphs: for (const paragraph of paragraphs) {
    for (const line of wrap(
      toWinAnsi(paragraph),
      (text) => font.widthOfTextAtSize(text, FONT_SIZE),
      width,
    )) {
      if (++lines > MAX_LINES) {
        cut = true;
        break paragraphs;
      }
      await drawLine(line);
    }
    y -= LINE_HEIGHT / 2;
  }
  if (cut) await drawLine('[The document is longer: the rest of its text is left out.]');
  await writeFile(output, await doc.save());
  return output;
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
