/**
 * The last resort for `.docx` when LibreOffice and pandoc cannot convert it: the text of its
 * paragraphs (`word/document.xml` inside the zip, read with `unzip`) laid out as a plain PDF.
 */
import { runTool } from '@pelita/kit';
import { scanParagraphs, type ParagraphScan } from './docx-paragraphs';
import { createDeadline, MAX_TEXT_CHARS, textToPdf, type Deadline } from './text-pdf';

/**
 * The whole fallback (unzip, reading the text, laying it out) runs under one time limit, the
 * LibreOffice runs' own: past it, or when the client leaves, it stops with the kit's `ToolError`
 * (`timeout`, `cancelled`), as a tool run would.
 */
export async function docxToTextPdf(
  docx: string,
  output: string,
  limits: { timeoutMs: number; signal?: AbortSignal },
): Promise<string> {
  const deadline = createDeadline('docx-text', limits.timeoutMs, limits.signal);
  const xml = await runTool('unzip', ['-p', docx, 'word/document.xml'], {
    timeoutMs: deadline.remainingMs(),
    ...(limits.signal ? { signal: limits.signal } : {}),
  });
  const scan = await readParagraphs(xml, MAX_TEXT_CHARS, deadline);
  if (scan.paragraphs.length === 0) throw new Error('the .docx has no readable text');
  return textToPdf(scan.paragraphs, scan.truncated, output, deadline);
}

/** `scanParagraphs` in steps, letting other requests run and checking the deadline between them. */
async function readParagraphs(
  xml: string,
  maxChars: number,
  deadline: Deadline,
): Promise<ParagraphScan> {
  const scan = scanParagraphs(xml, maxChars);
  for (;;) {
    const step = scan.next();
    if (step.done) return step.value;
    await deadline.pause();
  }
}
