/** PDFs made by the tests: `pages` pages, each with one line of real text. */
import { PDFDocument, StandardFonts } from 'pdf-lib';

export async function textPdf(pages: number, line: (page: number) => string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let page = 1; page <= pages; page += 1) {
    doc.addPage([595, 842]).drawText(line(page), { x: 60, y: 760, size: 12, font });
  }
  return Buffer.from(await doc.save());
}
