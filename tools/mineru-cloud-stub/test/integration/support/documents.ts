/** Test documents made here (never downloaded): PDFs with a text layer, written with pdf-lib. */
import { PDFDocument, StandardFonts } from 'pdf-lib';

export interface PageText {
  title?: string;
  lines: string[];
}

/** One page per entry: an optional large title, then body lines in a smaller font. */
export async function textPdf(pages: PageText[]): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const page of pages) {
    const sheet = pdf.addPage([420, 595]);
    let y = 540;
    if (page.title) {
      sheet.drawText(page.title, { x: 40, y, size: 20, font });
      y -= 40;
    }
    for (const line of page.lines) {
      sheet.drawText(line, { x: 40, y, size: 11, font });
      y -= 16;
    }
  }
  return Buffer.from(await pdf.save());
}

/** A small PDF of `count` pages, each saying which page it is. */
export function numberedPdf(count: number): Promise<Buffer> {
  return textPdf(
    Array.from({ length: count }, (_, index) => ({ lines: [`This is page number ${index + 1}.`] })),
  );
}

/** The smallest valid PNG (1×1 pixel). */
export const PNG_PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
