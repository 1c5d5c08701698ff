/** Documents made by the tests: PDFs with real text, office files and images made from them. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/** A PDF of `pages` pages, each with one line of real text. */
export async function textPdf(pages: number, line: (page: number) => string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let page = 1; page <= pages; page += 1) {
    doc.addPage([595, 842]).drawText(line(page), { x: 60, y: 760, size: 12, font });
  }
  return Buffer.from(await doc.save());
}

const run = promisify(execFile);

/** `content` written as `name` and converted by a real LibreOffice run (e.g. `notes.txt` → `docx`). */
export async function officeFile(name: string, content: string, to: string): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'ocr-office-'));
  try {
    await writeFile(join(dir, name), content);
    await run('soffice', [
      '--headless',
      '--norestore',
      `-env:UserInstallation=file://${join(dir, 'profile')}`,
      '--convert-to',
      to,
      '--outdir',
      join(dir, 'out'),
      join(dir, name),
    ]);
    return await readFile(join(dir, 'out', `${name.slice(0, name.lastIndexOf('.'))}.${to}`));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The first page of `pdf` as a PNG (poppler). */
export async function pngOf(pdf: Buffer): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'ocr-png-'));
  try {
    await writeFile(join(dir, 'in.pdf'), pdf);
    await run('pdftoppm', [
      '-png',
      '-r',
      '100',
      '-singlefile',
      join(dir, 'in.pdf'),
      join(dir, 'page'),
    ]);
    return await readFile(join(dir, 'page.png'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
