/**
 * The last resort for `.docx` when LibreOffice cannot convert it: the text of its paragraphs
 * (`word/document.xml` inside the zip, read with `unzip`) laid out as a plain PDF with pdf-lib.
 * Formatting is lost; the words, which is what OCR and search need, are kept.
 */
import { writeFile } from 'node:fs/promises';
import { runTool } from '@pelita/kit';
import { PDFDocument, StandardFonts } from 'pdf-lib';

const PAGE = { width: 595, height: 842, margin: 56 };
const FONT_SIZE = 11;
const LINE_HEIGHT = 15;

/** Paragraph texts of a WordprocessingML document. */
export function docxParagraphs(documentXml: string): string[] {
  const paragraphs: string[] = [];
  for (const paragraph of documentXml.matchAll(/<w:p[\s>][\s\S]*?<\/w:p>/g)) {
    const runs = [
      ...paragraph[0].matchAll(/<w:t(?:\s[^>]*)?>([\s\S]*?)<\/w:t>|<w:tab\/>|<w:br\/>/g),
    ];
    const text = runs
      .map((run) =>
        run[1] !== undefined ? decodeXml(run[1]) : run[0] === '<w:tab/>' ? '\t' : '\n',
      )
      .join('');
    if (text.trim() !== '') paragraphs.push(text);
  }
  return paragraphs;
}

export async function docxToTextPdf(
  docx: string,
  output: string,
  limits: { timeoutMs: number; signal?: AbortSignal },
): Promise<string> {
  const xml = await runTool('unzip', ['-p', docx, 'word/document.xml'], limits);
  const paragraphs = docxParagraphs(xml);
  if (paragraphs.length === 0) throw new Error('the .docx has no readable text');
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const width = PAGE.width - 2 * PAGE.margin;
  let page = doc.addPage([PAGE.width, PAGE.height]);
  let y = PAGE.height - PAGE.margin;
  for (const paragraph of paragraphs) {
    for (const line of wrap(
      toWinAnsi(paragraph),
      (text) => font.widthOfTextAtSize(text, FONT_SIZE),
      width,
    )) {
      if (y < PAGE.margin) {
        page = doc.addPage([PAGE.width, PAGE.height]);
        y = PAGE.height - PAGE.margin;
      }
      page.drawText(line, { x: PAGE.margin, y, size: FONT_SIZE, font });
      y -= LINE_HEIGHT;
    }
    y -= LINE_HEIGHT / 2;
  }
  await writeFile(output, await doc.save());
  return output;
}

/** Greedy word wrap to `maxWidth`. */
export function wrap(text: string, widthOf: (text: string) => number, maxWidth: number): string[] {
  const lines: string[] = [];
  for (const source of text.split('\n')) {
    let line = '';
    for (const word of source.replace(/\t/g, '    ').split(/ +/)) {
      const candidate = line === '' ? word : `${line} ${word}`;
      if (line !== '' && widthOf(candidate) > maxWidth) {
        lines.push(line);
        line = word;
      } else {
        line = candidate;
      }
    }
    lines.push(line);
  }
  return lines;
}

// The standard fonts encode WinAnsi only: other characters would make pdf-lib throw.
function toWinAnsi(text: string): string {
  return text.replace(/[^\x20-\x7e\xa0-\xff\n\t]/g, '?');
}

function decodeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&amp;/g, '&');
}
