/**
 * MinerU's outputs made from what poppler found: the content list (`{type: "text", text,
 * text_level?, page_idx, bbox}`, boxes on MinerU's 0–1000 grid of the page; the shape is
 * @pelita/ocr-engine's), `full.md`, and a small `layout.json` (the middle JSON's `pdf_info` with
 * page sizes and block boxes in points).
 */
import type { Box, ContentItem, ImageItem } from '@pelita/ocr-engine';
import type { PageBlock, PdfPage } from './pdf-text';

export interface ExtractedDocument {
  contentList: ContentItem[];
  markdown: string;
  layout: unknown;
}

/** A block whose first line is this much taller than the document's usual line is a title. */
const TITLE_HEIGHT_RATIO = 1.25;
const TITLE_MAX_WORDS = 15;

export function documentFromPages(pages: readonly PdfPage[]): ExtractedDocument {
  const usual = medianLineHeight(pages);
  const contentList: ContentItem[] = [];
  for (const page of pages) {
    for (const block of page.blocks) {
      // Keys in MinerU's order: type, text, text_level (titles only), page_idx, bbox.
      contentList.push({
        type: 'text',
        text: block.text,
        ...(isTitle(block, usual) ? { text_level: 1 } : {}),
        page_idx: page.index,
        bbox: gridBox(block.box, page.width, page.height),
      });
    }
  }
  const layout = {
    pdf_info: pages.map((page) => ({
      page_idx: page.index,
      page_size: [page.width, page.height],
      para_blocks: page.blocks.map((block) => ({ type: 'text', bbox: block.box })),
    })),
    _backend: 'pipeline',
    _version_name: 'mineru-cloud-stub',
  };
  return { contentList, markdown: markdownOf(contentList), layout };
}

/** An image input: one page holding the picture, nothing read from it (the double runs no OCR). */
export function documentFromImage(imagePath: string): ExtractedDocument {
  const item: ImageItem = {
    type: 'image',
    img_path: imagePath,
    image_caption: [],
    image_footnote: [],
    page_idx: 0,
    bbox: [0, 0, 1000, 1000],
  };
  return {
    contentList: [item],
    markdown: markdownOf([item]),
    layout: { pdf_info: [{ page_idx: 0, para_blocks: [{ type: 'image' }] }] },
  };
}

/** Titles as `# `, paragraphs apart, images as Markdown images: the shape of MinerU's full.md. */
export function markdownOf(items: readonly ContentItem[]): string {
  const parts = items.map((item) => {
    if (item.type === 'image') return `![](${item.img_path})`;
    return item.text_level ? `${'#'.repeat(item.text_level)} ${item.text}` : item.text;
  });
  return parts.length === 0 ? '' : `${parts.join('\n\n')}\n`;
}

export function gridBox([x0, y0, x1, y1]: Box, width: number, height: number): Box {
  const scale = (value: number, size: number) =>
    size > 0 ? Math.min(1000, Math.max(0, Math.round((value / size) * 1000))) : 0;
  return [scale(x0, width), scale(y0, height), scale(x1, width), scale(y1, height)];
}

function isTitle(block: PageBlock, usualHeight: number): boolean {
  return (
    usualHeight > 0 &&
    block.lineHeight >= usualHeight * TITLE_HEIGHT_RATIO &&
    block.text.split(' ').length <= TITLE_MAX_WORDS
  );
}

function medianLineHeight(pages: readonly PdfPage[]): number {
  const heights = pages
    .flatMap((page) => page.blocks.map((block) => block.lineHeight))
    .sort((a, b) => a - b);
  // The lower median: with one title and one paragraph, the paragraph sets the usual height.
  return heights[Math.floor((heights.length - 1) / 2)] ?? 0;
}
