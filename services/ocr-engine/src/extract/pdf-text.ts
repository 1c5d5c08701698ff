/** The text layer of PDF pages through poppler: page count, and text blocks with their boxes. */
import { runTool, ToolError } from '@pelita/kit';
import type { Box, TextItem } from '../mineru/content-list';
import { normaliseBox } from './content';

export interface ToolLimits {
  timeoutMs: number;
  signal?: AbortSignal;
}

export async function pageCount(pdf: string, limits: ToolLimits): Promise<number> {
  const info = await runTool('pdfinfo', [pdf], limits);
  const pages = /^Pages:\s+(\d+)/m.exec(info)?.[1];
  if (pages === undefined) throw new ToolError('pdfinfo reported no page count', 'pdfinfo');
  return Number(pages);
}

/** Text blocks of one page (0-based), as poppler groups them, in reading order. */
export async function textBlocks(
  pdf: string,
  pageIdx: number,
  limits: ToolLimits,
): Promise<TextItem[]> {
  const page = String(pageIdx + 1);
  const xhtml = await runTool(
    'pdftotext',
    ['-bbox-layout', '-f', page, '-l', page, pdf, '-'],
    limits,
  );
  return parseBboxLayout(xhtml, pageIdx);
}

const PAGE = /<page width="([\d.]+)" height="([\d.]+)">/;
const BLOCK =
  /<block xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([\s\S]*?)<\/block>/g;
const LINE = /<line[^>]*>([\s\S]*?)<\/line>/g;
const WORD = /<word[^>]*>([\s\S]*?)<\/word>/g;

/** Parses `pdftotext -bbox-layout` output (XHTML poppler generates) into text items. */
export function parseBboxLayout(xhtml: string, pageIdx: number): TextItem[] {
  const page = PAGE.exec(xhtml);
  if (!page) return [];
  const width = Number(page[1]);
  const height = Number(page[2]);
  const items: TextItem[] = [];
  for (const block of xhtml.matchAll(BLOCK)) {
    const lines = [...(block[5] ?? '').matchAll(LINE)].map((line) =>
      [...(line[1] ?? '').matchAll(WORD)].map((word) => decodeEntities(word[1] ?? '')).join(' '),
    );
    const text = lines.join(' ').trim();
    if (text === '') continue;
    const box = block.slice(1, 5).map(Number) as Box;
    items.push({ type: 'text', text, page_idx: pageIdx, bbox: normaliseBox(box, width, height) });
  }
  return items;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[\da-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X')) {
      return String.fromCodePoint(parseInt(name.slice(2), 16));
    }
    if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}
