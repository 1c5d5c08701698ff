/** What the OCR benchmarks share: a text PDF to submit, and submitting it through the task API. */
import { PDFDocument, StandardFonts } from 'pdf-lib';

/** A PDF of `pages` pages, one line of text each. */
export async function benchmarkPdf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let page = 1; page <= pages; page += 1)
    doc.addPage([595, 842]).drawText(`Page ${page} of the benchmark`, { x: 60, y: 760, font });
  return Buffer.from(await doc.save());
}

/** `count` uploads of `file` for the cloud engine; resolves with their task ids, in order. */
export async function submitPdfs(apiUrl: string, file: Buffer, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const form = new FormData();
    form.append('file', new Blob([file]), `bench-${i}.pdf`);
    const res = await fetch(`${apiUrl}/api/v1/pdfs?processing=cloud`, {
      method: 'POST',
      body: form,
    });
    if (!res.ok) throw new Error(`POST /api/v1/pdfs answered ${res.status}: ${await res.text()}`);
    ids.push(((await res.json()) as { task_id: string }).task_id);
  }
  return ids;
}
