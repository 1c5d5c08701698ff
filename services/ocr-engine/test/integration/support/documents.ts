/**
 * Documents made by the tests (never downloaded): PDFs with a text layer (pdf-lib), scanned
 * PDFs (a text page rendered by poppler and put back as an image only), PNG pages, and a PDF
 * with an embedded picture.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts } from 'pdf-lib';

const run = promisify(execFile);

export const PARAGRAPHS = [
  'Pelita reads every page of this document with care and keeps the words in order.',
  'The quarterly report shows revenue rising in Jakarta, Surabaya and Bandung.',
  'Invoices are due within thirty days and late payments carry a small fee.',
];

/** A PDF whose pages carry `paragraphs` as real text (one block each). */
export async function textPdf(pages: number, paragraphs = PARAGRAPHS): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 0; p < pages; p += 1) {
    const page = doc.addPage([595, 842]);
    page.drawText(`Page ${p + 1}`, { x: 60, y: 780, size: 18, font });
    paragraphs.forEach((text, i) =>
      page.drawText(text, { x: 60, y: 720 - i * 60, size: 12, font }),
    );
  }
  return Buffer.from(await doc.save());
}

/** Renders a PDF's first page to PNG with poppler, at `dpi`. */
export async function renderPng(pdf: Buffer, dpi: number): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'ocr-doc-'));
  try {
    await writeFile(join(dir, 'in.pdf'), pdf);
    await run('pdftoppm', [
      '-r',
      String(dpi),
      '-f',
      '1',
      '-l',
      '1',
      '-png',
      '-singlefile',
      join(dir, 'in.pdf'),
      join(dir, 'page'),
    ]);
    return await readFile(join(dir, 'page.png'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A scanned document: each page an image of a text page, with no text layer at all. */
export async function scannedPdf(pages: number): Promise<Buffer> {
  const png = await renderPng(await textPdf(1), 300);
  const doc = await PDFDocument.create();
  const image = await doc.embedPng(png);
  for (let p = 0; p < pages; p += 1) {
    const page = doc.addPage([595, 842]);
    page.drawImage(image, { x: 0, y: 0, width: 595, height: 842 });
  }
  return Buffer.from(await doc.save());
}

/** A text page with a picture (a rendered page, 200 px wide) drawn on it. */
export async function pdfWithPicture(): Promise<Buffer> {
  const picture = await renderPng(await textPdf(1, ['A chart of rising revenue.']), 24);
  const doc = await PDFDocument.load(await textPdf(1));
  const image = await doc.embedPng(picture);
  doc.getPage(0).drawImage(image, { x: 60, y: 300, width: 200, height: 283 });
  return Buffer.from(await doc.save());
}

/** Share of the expected words found in `text` (case and punctuation aside). */
export function wordRecall(expected: string[], text: string): number {
  const words = (value: string) => value.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const found = new Map<string, number>();
  for (const word of words(text)) found.set(word, (found.get(word) ?? 0) + 1);
  const wanted = expected.flatMap(words);
  let hits = 0;
  for (const word of wanted) {
    const left = found.get(word) ?? 0;
    if (left > 0) {
      hits += 1;
      found.set(word, left - 1);
    }
  }
  return hits / wanted.length;
}
