/**
 * One file to MinerU-shaped output: per page, the text layer when it has one (poppler), OCR
 * otherwise (poppler renders, tesseract reads); in the representation mode, embedded images
 * described by a vision model. Progress is reported per page.
 */
import type { ContentItem, ImageItem, TextItem } from '../mineru/content-list';
import { toMarkdown } from './content';
import type { DetectedFile } from './file-type';
import type { DescribeImage } from './image-descriptions';
import { extractImages } from './images';
import { ocrImage, ocrPdfPage, type OcrOptions } from './ocr';
import { pageCount, textBlocks } from './pdf-text';

export type ParseMethod = 'auto' | 'txt' | 'ocr';

export interface ExtractOptions {
  parseMethod: ParseMethod;
  /** 0-based, inclusive; clamped to the document. */
  startPage: number;
  endPage: number;
  /** Describe embedded images (MinerU's `image_analysis`, the seed's `representasi`). */
  imageAnalysis: boolean;
  maxImages: number;
  /** A page whose text layer has fewer characters is OCR'd in `auto` mode. */
  minTextChars: number;
  ocr: OcrOptions;
  describeImage: DescribeImage | undefined;
  workDir: string;
  onPage: (done: number, total: number) => void;
}

export interface Extraction {
  items: ContentItem[];
  markdown: string;
  /** The image files behind the image items, by the name their `img_path` gives. */
  images: Array<{ name: string; path: string }>;
}

const FULL_PAGE: ImageItem['bbox'] = [0, 0, 1000, 1000];

export async function extractDocument(
  path: string,
  file: DetectedFile,
  options: ExtractOptions,
): Promise<Extraction> {
  const images: Extraction['images'] = [];
  const items =
    file.kind === 'pdf'
      ? await extractPdf(path, options, images)
      : await extractImage(path, file, options, images);
  return { items, markdown: toMarkdown(items), images };
}

async function extractPdf(
  pdf: string,
  options: ExtractOptions,
  imageFiles: Extraction['images'],
): Promise<ContentItem[]> {
  const limits = toolLimits(options);
  const total = await pageCount(pdf, limits);
  const first = Math.min(Math.max(options.startPage, 0), total - 1);
  const last = Math.min(options.endPage, total - 1);
  const pages = last - first + 1;
  const perPage: ContentItem[][] = [];
  options.onPage(0, pages);
  for (let pageIdx = first; pageIdx <= last; pageIdx += 1) {
    perPage.push(await extractPdfPage(pdf, pageIdx, options));
    options.onPage(pageIdx - first + 1, pages);
  }
  if (options.imageAnalysis) {
    const images = await extractImages(
      pdf,
      { first, last },
      options.maxImages,
      options.workDir,
      limits,
    );
    for (const [index, image] of images.entries()) {
      const item = await describedImage(image.path, 'image/png', image.pageIdx, index, options);
      imageFiles.push({ name: item.img_path.slice('images/'.length), path: image.path });
      perPage[image.pageIdx - first]?.push(item);
    }
  }
  return perPage.flat();
}

async function extractPdfPage(
  pdf: string,
  pageIdx: number,
  options: ExtractOptions,
): Promise<TextItem[]> {
  if (options.parseMethod !== 'ocr') {
    const blocks = await textBlocks(pdf, pageIdx, toolLimits(options));
    const characters = blocks.reduce((sum, block) => sum + block.text.length, 0);
    if (options.parseMethod === 'txt' || characters >= options.minTextChars) return blocks;
  }
  return ocrPdfPage(pdf, pageIdx, options.workDir, options.ocr);
}

async function extractImage(
  path: string,
  file: DetectedFile,
  options: ExtractOptions,
  imageFiles: Extraction['images'],
): Promise<ContentItem[]> {
  options.onPage(0, 1);
  const items: ContentItem[] = await ocrImage(path, 0, options.ocr);
  if (options.imageAnalysis && options.maxImages > 0) {
    const item = await describedImage(path, file.mimeType, 0, 0, options);
    imageFiles.push({ name: item.img_path.slice('images/'.length), path });
    items.push(item);
  }
  options.onPage(1, 1);
  return items;
}

async function describedImage(
  path: string,
  mimeType: string,
  pageIdx: number,
  index: number,
  options: ExtractOptions,
): Promise<ImageItem> {
  const description = options.describeImage
    ? await options.describeImage(path, mimeType, options.ocr.signal)
    : undefined;
  return {
    type: 'image',
    img_path: `images/image-${index + 1}.${mimeType === 'image/jpeg' ? 'jpg' : mimeType.slice('image/'.length)}`,
    image_caption: description ? [description] : [],
    image_footnote: [],
    page_idx: pageIdx,
    // poppler reports an image's size, not where the page draws it.
    bbox: FULL_PAGE,
  };
}

function toolLimits(options: ExtractOptions) {
  return {
    timeoutMs: options.ocr.timeoutMs,
    ...(options.ocr.signal ? { signal: options.ocr.signal } : {}),
  };
}
