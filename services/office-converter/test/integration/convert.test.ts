/**
 * Conversions with a real LibreOffice and pdf-lib: office files made by LibreOffice itself from
 * text, every image type of the seed, PDFs, merging, concurrent runs, and the error answers.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import {
  officeFiles,
  pdfText,
  startConverter,
  type ConverterUnderTest,
} from './support/converter-under-test';

jest.setTimeout(180_000);
const run = promisify(execFile);

async function textPdf(words: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([595, 842]).drawText(words, { x: 50, y: 780, size: 14, font });
  return Buffer.from(await doc.save());
}

/** The first page of `pdf` as an image: PNG, JPEG and TIFF from poppler, the others by LibreOffice from the PNG. */
async function imageOf(pdf: Buffer, type: string): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'converter-img-'));
  try {
    await writeFile(join(dir, 'in.pdf'), pdf);
    const render = (format: string, out: string) =>
      run('pdftoppm', [
        '-r',
        '40',
        '-f',
        '1',
        '-l',
        '1',
        `-${format}`,
        '-singlefile',
        join(dir, 'in.pdf'),
        join(dir, out),
      ]);
    await render('png', 'page');
    if (type === 'png') return await readFile(join(dir, 'page.png'));
    // Read before `finally` removes the directory: a returned, unawaited read raced the removal.
    if (type === 'jpeg' || type === 'tiff') {
      await render(type, 'other');
      return await readFile(join(dir, type === 'jpeg' ? 'other.jpg' : 'other.tif'));
    }
    await run('soffice', [
      '--headless',
      `-env:UserInstallation=file://${join(dir, 'profile')}`,
      '--convert-to',
      type,
      '--outdir',
      join(dir, 'out'),
      join(dir, 'page.png'),
    ]);
    return await readFile(join(dir, 'out', `page.${type}`));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const FLAT_PRESENTATION = (text: string) =>
  '<?xml version="1.0" encoding="UTF-8"?>' +
  '<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ' +
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" office:version="1.2" ' +
  'office:mimetype="application/vnd.oasis.opendocument.presentation"><office:body><office:presentation>' +
  '<draw:page draw:name="page1"><draw:frame svg:width="20cm" svg:height="3cm" svg:x="2cm" svg:y="2cm">' +
  `<draw:text-box><text:p>${text}</text:p></draw:text-box></draw:frame></draw:page>` +
  '</office:presentation></office:body></office:document>';

const WORD = 'docx:MS Word 2007 XML';
const CONCURRENT_WORDS = ['alpha apples', 'bravo bananas', 'charlie cherries', 'delta dates'];

describe('office-converter', () => {
  let converter: ConverterUnderTest;
  /** The office documents of the tests below, by source name, one map per format. */
  let made: Record<'docx' | 'odt' | 'xlsx' | 'pptx', Record<string, Buffer>>;
  beforeAll(async () => {
    converter = await startConverter({ MAX_CONCURRENT_CONVERSIONS: '2' });
    // Made by LibreOffice in one run per format (they were one run per document: nine start-ups,
    // now four): the documents are the same, only the start-ups are shared.
    made = {
      docx: await officeFiles(
        {
          'report.txt': 'Quarterly revenue rose in Jakarta',
          'b.txt': 'Second part from Word',
          ...Object.fromEntries(CONCURRENT_WORDS.map((words, i) => [`d${i}.txt`, words])),
        },
        WORD,
      ),
      odt: await officeFiles({ 'report.txt': 'Minutes of the board meeting' }, 'odt'),
      xlsx: await officeFiles({ 'sheet.csv': 'Invoice,Amount\nJakarta,1200\nBandung,800' }, 'xlsx'),
      pptx: await officeFiles({ 'deck.fodp': FLAT_PRESENTATION('Roadmap for next year') }, 'pptx'),
    };
  });
  afterAll(() => converter.stop());

  const convert = async (name: string, bytes: Buffer) => {
    const res = await converter.post('/convert', [{ name, bytes }]);
    const body = Buffer.from(await res.arrayBuffer());
    return { res, body };
  };

  it.each([
    ['docx', 'report.txt', 'Quarterly revenue rose in Jakarta'],
    ['odt', 'report.txt', 'Minutes of the board meeting'],
    ['xlsx', 'sheet.csv', 'Invoice,Amount\nJakarta,1200\nBandung,800'],
    ['csv', 'table.csv', 'City,Visitors\nSurabaya,4500'],
  ] as const)('converts %s to a PDF that keeps its words', async (extension, source, content) => {
    const bytes = extension === 'csv' ? Buffer.from(content) : made[extension][source]!;
    const { res, body } = await convert(`input.${extension}`, bytes);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="input.pdf"');
    const { text } = await pdfText(body);
    for (const word of content.split(/[\s,]+/)) expect(text).toContain(word);
  });

  it('converts pptx', async () => {
    const { res, body } = await convert('deck.pptx', made.pptx['deck.fodp']!);
    expect(res.status).toBe(200);
    const { text, pages } = await pdfText(body);
    expect(pages).toBe(1);
    expect(text).toContain('Roadmap for next year');
  });

  it.each(['png', 'jpeg', 'tiff', 'gif', 'bmp', 'webp'])(
    'converts a %s image to a one-page PDF',
    async (type) => {
      const image = await imageOf(await textPdf('Image page'), type);
      const { res, body } = await convert(`picture.${type === 'jpeg' ? 'jpg' : type}`, image);
      expect(res.status).toBe(200);
      expect((await pdfText(body)).pages).toBe(1);
      expect(body.subarray(0, 5).toString()).toBe('%PDF-');
    },
  );

  it('passes a PDF through, and refuses a broken one with 422', async () => {
    const pdf = await textPdf('Already a PDF');
    const { res, body } = await convert('doc.pdf', pdf);
    expect(res.status).toBe(200);
    expect(body.equals(pdf)).toBe(true);
    const broken = await convert('broken.pdf', Buffer.from('%PDF-1.7\nnot really\n'));
    expect(broken.res.status).toBe(422);
    expect(JSON.parse(broken.body.toString()).error.code).toBe('invalid_pdf');
  });

  it('merges a PDF, a docx and an image into one PDF, in order', async () => {
    const res = await converter.post('/merge', [
      { name: 'a.pdf', bytes: await textPdf('First part from a PDF') },
      { name: 'b.docx', bytes: made.docx['b.txt']! },
      { name: 'c.png', bytes: await imageOf(await textPdf('Third'), 'png') },
    ]);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-page-count')).toBe('3');
    const { text, pages } = await pdfText(Buffer.from(await res.arrayBuffer()));
    expect(pages).toBe(3);
    expect(text.indexOf('First part from a PDF')).toBeLessThan(
      text.indexOf('Second part from Word'),
    );
  });

  it('runs concurrent conversions without collisions: every answer holds its own words', async () => {
    const words = CONCURRENT_WORDS;
    const answers = await Promise.all(
      words.map((_, i) => convert(`d${i}.docx`, made.docx[`d${i}.txt`]!)),
    );
    for (const [i, answer] of answers.entries()) {
      expect(answer.res.status).toBe(200);
      const { text } = await pdfText(answer.body);
      expect(text).toContain(words[i]);
      for (const other of words.filter((_, j) => j !== i)) expect(text).not.toContain(other);
    }
  });

  it('answers bad requests with a 4xx JSON error', async () => {
    const unknown = await convert('notes.txt', Buffer.from('plain text'));
    expect(unknown.res.status).toBe(400);
    expect(JSON.parse(unknown.body.toString()).error.code).toBe('unsupported_file_type');
    const lying = await convert('photo.png', Buffer.from('not an image at all'));
    expect(lying.res.status).toBe(400);
    const brokenDoc = await convert('sheet.xlsx', Buffer.from('PK\u0003\u0004 broken zip'));
    expect(brokenDoc.res.status).toBe(422);
    expect(JSON.parse(brokenDoc.body.toString()).error.code).toBe('conversion_failed');
    const none = await converter.post('/merge', []);
    expect(none.status).toBe(400);
    const json = await fetch(`${converter.url}/convert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(415);
  });
});
