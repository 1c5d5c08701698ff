/** OCR through tesseract: a page rendered by poppler, or an image file, into text paragraphs. */
import { join } from 'node:path';
import { runTool } from '@pelita/kit';
import type { Box, TextItem } from '../mineru/content-list';
import { normaliseBox } from './content';
import type { ToolLimits } from './pdf-text';

export interface OcrOptions extends ToolLimits {
  /** tesseract languages, `+`-joined (`eng`, `eng+ind`). */
  languages: string;
  /** Rendering resolution of PDF pages. */
  dpi: number;
}

// One thread per tesseract run: tasks already run side by side, and OpenMP's threads would
// compete with them for the same cores.
const TESSERACT_ENV = { OMP_THREAD_LIMIT: '1' };

/** Renders one page (0-based) to PNG in `workDir` and OCRs it. */
export async function ocrPdfPage(
  pdf: string,
  pageIdx: number,
  workDir: string,
  options: OcrOptions,
): Promise<TextItem[]> {
  const page = String(pageIdx + 1);
  const prefix = join(workDir, `page-${page}`);
  const limits = {
    timeoutMs: options.timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  await runTool(
    'pdftoppm',
    ['-r', String(options.dpi), '-f', page, '-l', page, '-png', '-singlefile', pdf, prefix],
    limits,
  );
  return ocrImage(`${prefix}.png`, pageIdx, options);
}

/** OCRs one image file as page `pageIdx`. */
export async function ocrImage(
  image: string,
  pageIdx: number,
  options: OcrOptions,
): Promise<TextItem[]> {
  const tsv = await runTool('tesseract', [image, 'stdout', '-l', options.languages, 'tsv'], {
    timeoutMs: options.timeoutMs,
    env: TESSERACT_ENV,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return parseTesseractTsv(tsv, pageIdx);
}

interface Paragraph {
  words: string[];
  box: Box;
}

/** Groups tesseract's word rows into paragraphs (its block and paragraph numbers), in order. */
export function parseTesseractTsv(tsv: string, pageIdx: number): TextItem[] {
  let width = 0;
  let height = 0;
  const paragraphs = new Map<string, Paragraph>();
  for (const row of tsv.split('\n').slice(1)) {
    const cells = row.split('\t');
    if (cells.length < 12) continue;
    const [level, , block, par, , , left, top, w, h] = cells.map(Number);
    const text = cells.slice(11).join('\t').trim();
    if (level === 1) {
      width = w ?? 0;
      height = h ?? 0;
    }
    if (level !== 5 || text === '') continue;
    const key = `${block}.${par}`;
    const box: Box = [left ?? 0, top ?? 0, (left ?? 0) + (w ?? 0), (top ?? 0) + (h ?? 0)];
    const paragraph = paragraphs.get(key);
    if (!paragraph) {
      paragraphs.set(key, { words: [text], box });
      continue;
    }
    paragraph.words.push(text);
    paragraph.box = [
      Math.min(paragraph.box[0], box[0]),
      Math.min(paragraph.box[1], box[1]),
      Math.max(paragraph.box[2], box[2]),
      Math.max(paragraph.box[3], box[3]),
    ];
  }
  if (width === 0 || height === 0) return [];
  return [...paragraphs.values()].map((paragraph) => ({
    type: 'text',
    text: paragraph.words.join(' '),
    page_idx: pageIdx,
    bbox: normaliseBox(paragraph.box, width, height),
  }));
}
