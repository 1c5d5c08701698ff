/**
 * What the engine extracts, in MinerU's content-list shape: text blocks and images with their
 * page (0-based `page_idx`) and box (`bbox`, corners on a 0–1000 grid of the page, as MinerU
 * normalises them), and the Markdown made from them.
 */
export type Box = [number, number, number, number];

export interface TextItem {
  type: 'text';
  text: string;
  page_idx: number;
  bbox: Box;
}

export interface ImageItem {
  type: 'image';
  img_path: string;
  image_caption: string[];
  image_footnote: string[];
  page_idx: number;
  bbox: Box;
}

export type ContentItem = TextItem | ImageItem;

/** A box in page units (points or pixels) on the 0–1000 grid. */
export function normaliseBox([x0, y0, x1, y1]: Box, pageWidth: number, pageHeight: number): Box {
  const scale = (value: number, size: number) =>
    Math.min(1000, Math.max(0, Math.round((value / size) * 1000)));
  return [scale(x0, pageWidth), scale(y0, pageHeight), scale(x1, pageWidth), scale(y1, pageHeight)];
}

/** Markdown of the items in order: paragraphs apart, images with their description below. */
export function toMarkdown(items: readonly ContentItem[]): string {
  return items
    .map((item) =>
      item.type === 'text'
        ? item.text
        : [`![](${item.img_path})`, ...item.image_caption].join('\n\n'),
    )
    .join('\n\n');
}
