/** What the OCR benchmarks share: a text PDF to submit, and submitting it through the task API. */
import { requireEnv } from '@pelita/testenv';
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

/** ocr-service's settings on the test servers, its cloud engine the stand-in at `cloudUrl`. */
export function ocrServiceEnv(cloudUrl: string, key: string): Record<string, string> {
  return {
    ...requireEnv(
      'REDIS_URL',
      'OPENSEARCH_URL',
      'S3_ENDPOINT',
      'S3_ACCESS_KEY',
      'S3_SECRET_KEY',
      'S3_REGION',
    ),
    S3_BUCKET: 'bench-ocr',
    OCR_ENGINE_CLOUD_URL: cloudUrl,
    OCR_ENGINE_CLOUD_API_KEY: key,
    OCR_POLL_INTERVAL_MS: '100',
    ALLOWED_TARGETS: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
}
