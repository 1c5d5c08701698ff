/**
 * The text layer of a PDF through poppler: the page count (`pdfinfo`) and the text blocks of every
 * page with their boxes (`pdftotext -tsv`, one run for the whole document).
 */
import { runTool } from '@pelita/kit';

export interface PageBlock {
  text: string;
  /** Corners in PDF points from the page's top left: x0, y0, x1, y1. */
  box: [number, number, number, number];
  /** Height of the block's first line, in points: a stand-in for its font size. */
  lineHeight: number;
}

export interface PdfPage {
  /** 0-based, as MinerU's `page_idx`. */
  index: number;
  width: number;
  height: number;
  blocks: PageBlock[];
}

const TOOL_TIMEOUT_MS = 30_000;

export async function pdfPageCount(path: string): Promise<number> {
  const info = await runTool('pdfinfo', [path], { timeoutMs: TOOL_TIMEOUT_MS });
  const pages = /^Pages:\s+(\d+)/m.exec(info)?.[1];
  if (pages === undefined) throw new Error('pdfinfo reported no page count');
  return Number(pages);
}

export async function pdfPages(path: string): Promise<PdfPage[]> {
  const tsv = await runTool('pdftotext', ['-tsv', '-enc', 'UTF-8', path, '-'], {
    timeoutMs: TOOL_TIMEOUT_MS,
  });
  return parsePopplerTsv(tsv);
}

/**
 * Poppler's TSV: level 1 rows open a page (its size in width/height), level 3 rows open a block
 * (a "flow"), level 4 a line, level 5 are words. Blocks without words are left out.
 */
export function parsePopplerTsv(tsv: string): PdfPage[] {
  const pages: PdfPage[] = [];
  let block: (PageBlock & { words: string[] }) | undefined;
  const closeBlock = () => {
    const page = pages[pages.length - 1];
    if (block && page && block.words.length > 0) {
      page.blocks.push({
        text: block.words.join(' '),
        box: block.box,
        lineHeight: block.lineHeight,
      });
    }
    block = undefined;
  };
  for (const line of tsv.split('\n').slice(1)) {
    const cells = line.split('\t');
    if (cells.length < 12) continue;
    const level = Number(cells[0]);
    const [left, top, width, height] = cells.slice(6, 10).map(Number) as [
      number,
      number,
      number,
      number,
    ];
    const text = cells.slice(11).join('\t');
    if (level === 1) {
      closeBlock();
      pages.push({ index: Number(cells[1]) - 1, width, height, blocks: [] });
    } else if (level === 3) {
      closeBlock();
      block = { text: '', box: [left, top, left + width, top + height], lineHeight: 0, words: [] };
    } else if (level === 4 && block && block.lineHeight === 0) {
      block.lineHeight = height;
    } else if (level === 5 && block && text.trim() !== '') {
      block.words.push(text.trim());
    }
  }
  closeBlock();
  return pages;
}
