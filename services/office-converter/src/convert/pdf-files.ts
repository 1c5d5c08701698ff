/** PDFs with pdf-lib: a PNG or JPEG as a one-page PDF, and several PDFs joined in order. */
import { readFile, writeFile } from 'node:fs/promises';
import { PDFDocument } from 'pdf-lib';

/** One page the size of the image (one pixel a point, as most image-to-PDF tools do). */
export async function imageToPdf(
  image: string,
  kind: 'png' | 'jpeg',
  output: string,
): Promise<string> {
  const doc = await PDFDocument.create();
  const bytes = await readFile(image);
  const embedded = kind === 'png' ? await doc.embedPng(bytes) : await doc.embedJpg(bytes);
  const page = doc.addPage([embedded.width, embedded.height]);
  page.drawImage(embedded, { x: 0, y: 0, width: embedded.width, height: embedded.height });
  await writeFile(output, await doc.save());
  return output;
}

export async function mergePdfs(inputs: string[], output: string): Promise<{ pages: number }> {
  const merged = await PDFDocument.create();
  for (const input of inputs) {
    const source = await PDFDocument.load(await readFile(input));
    const pages = await merged.copyPages(source, source.getPageIndices());
    for (const page of pages) merged.addPage(page);
  }
  await writeFile(output, await merged.save());
  return { pages: merged.getPageCount() };
}

/** Pages of a PDF; throws when pdf-lib cannot read it (broken or encrypted). */
export async function pdfPageCount(path: string): Promise<number> {
  return (await PDFDocument.load(await readFile(path))).getPageCount();
}
