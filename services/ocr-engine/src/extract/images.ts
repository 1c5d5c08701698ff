/**
 * Embedded images of a PDF (poppler's pdfimages), for the representation mode: the first ones
 * large enough to carry content, as PNG files, at most `maxImages`.
 */
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runTool } from '@pelita/kit';
import type { ToolLimits } from './pdf-text';

export interface EmbeddedImage {
  pageIdx: number;
  path: string;
  width: number;
  height: number;
}

// Icons, bullets and rules are not worth describing.
const MIN_SIDE_PX = 32;

/** Rows of `pdfimages -list`: page, number, type, width, height, ... */
export function parseImageList(
  list: string,
): Array<{ page: number; type: string; width: number; height: number }> {
  return list
    .split('\n')
    .slice(2)
    .map((row) => row.trim().split(/\s+/))
    .filter((cells) => cells.length >= 5 && /^\d+$/.test(cells[0] ?? ''))
    .map((cells) => ({
      page: Number(cells[0]),
      type: cells[2] ?? '',
      width: Number(cells[3]),
      height: Number(cells[4]),
    }));
}

export async function extractImages(
  pdf: string,
  pages: { first: number; last: number },
  maxImages: number,
  workDir: string,
  limits: ToolLimits,
): Promise<EmbeddedImage[]> {
  if (maxImages <= 0) return [];
  const range = ['-f', String(pages.first + 1), '-l', String(pages.last + 1)];
  const listed = parseImageList(await runTool('pdfimages', ['-list', ...range, pdf], limits));
  const images: EmbeddedImage[] = [];
  const byPage = new Map<number, typeof listed>();
  for (const image of listed) byPage.set(image.page, [...(byPage.get(image.page) ?? []), image]);
  for (const [page, onPage] of byPage) {
    if (images.length >= maxImages) break;
    const wanted = onPage.some(
      (image) => image.type === 'image' && Math.min(image.width, image.height) >= MIN_SIDE_PX,
    );
    if (!wanted) continue;
    // pdfimages writes every image of the page (masks too) in list order: `img-000.png`, ...
    const dir = join(workDir, `images-${page}`);
    await mkdir(dir, { recursive: true });
    await runTool(
      'pdfimages',
      ['-png', '-f', String(page), '-l', String(page), pdf, join(dir, 'img')],
      limits,
    );
    const files = (await readdir(dir)).filter((name) => name.endsWith('.png')).sort();
    onPage.forEach((image, index) => {
      const file = files[index];
      if (!file || images.length >= maxImages) return;
      if (image.type !== 'image' || Math.min(image.width, image.height) < MIN_SIDE_PX) return;
      images.push({
        pageIdx: page - 1,
        path: join(dir, file),
        width: image.width,
        height: image.height,
      });
    });
  }
  return images;
}
