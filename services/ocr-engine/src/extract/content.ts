/**
 * What the engine makes of its content list (`../mineru/content-list.ts`): boxes on MinerU's
 * 0–1000 grid, and the Markdown of the items.
 */
import type { Box, ContentItem } from '../mineru/content-list';

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
