/**
 * The second converter: documents LibreOffice fails on (a stand-in `soffice` that exits without
 * writing a PDF, or one that outlasts the time limit) are converted by the real pandoc; with
 * pandoc failing too, a `.docx` still falls back to its text and other files get a clear answer.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  officeFiles,
  pdfText,
  standInTool,
  startConverter,
  type ConverterUnderTest,
} from './support/converter-under-test';

jest.setTimeout(120_000);

describe('office-converter second converter (pandoc)', () => {
  let dir: string;
  let converter: ConverterUnderTest | undefined;
  /** The documents below, made by the real LibreOffice in one run per format (not one each). */
  let docx: Record<string, Buffer>;
  let odt: Record<string, Buffer>;
  let xlsx: Record<string, Buffer>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'converter-pandoc-'));
    docx = await officeFiles(
      {
        'm.txt': 'Memo kept by pandoc',
        's.txt': 'Read after the hang',
        'k.txt': 'Words of the last resort',
      },
      'docx:MS Word 2007 XML',
    );
    odt = await officeFiles({ 'n.txt': 'Notes kept by pandoc', 'l.txt': 'x' }, 'odt');
    xlsx = await officeFiles({ 'x.csv': 'a,b\n1,2\n' }, 'xlsx');
  });
  afterEach(async () => {
    await converter?.stop();
    converter = undefined;
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const silentSoffice = () => standInTool(dir, 'exit 0');

  it('converts .docx, .odt, .rtf and .csv that LibreOffice exits on without a PDF', async () => {
    converter = await startConverter({ SOFFICE_BIN: await silentSoffice() });
    const documents = [
      { name: 'memo.docx', bytes: docx['m.txt']! },
      { name: 'notes.odt', bytes: odt['n.txt']! },
      { name: 'letter.rtf', bytes: Buffer.from('{\\rtf1\\ansi {\\b Letter} kept by pandoc\\par}') },
      { name: 'table.csv', bytes: Buffer.from('fruit,count\nmango,12\ndurian,3\n') },
    ];
    for (const document of documents) {
      const res = await converter.post('/convert', [document]);
      expect({ name: document.name, status: res.status }).toEqual({
        name: document.name,
        status: 200,
      });
      const { text } = await pdfText(Buffer.from(await res.arrayBuffer()));
      expect(text).toMatch(/kept by pandoc|durian\s+3/);
    }
    const metrics = await (await fetch(`${converter.url}/metrics`)).text();
    expect(metrics).toMatch(/office_converter_conversions_total\{method="pandoc",outcome="ok"\} 4/);
    expect(metrics).toMatch(
      /office_converter_conversions_total\{method="libreoffice",outcome="failed"\} 4/,
    );
  });

  it('converts a .docx whose LibreOffice run outlasts the time limit', async () => {
    const hanging = await standInTool(dir, 'sleep 60');
    converter = await startConverter({ SOFFICE_BIN: hanging, CONVERSION_TIMEOUT_MS: '1500' });
    const started = Date.now();
    const res = await converter.post('/convert', [{ name: 'slow.docx', bytes: docx['s.txt']! }]);
    expect(res.status).toBe(200);
    expect((await pdfText(Buffer.from(await res.arrayBuffer()))).text).toContain(
      'Read after the hang',
    );
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('with LibreOffice and pandoc failing, a .docx falls back to its text and an .odt is 422 naming both', async () => {
    const failingPandoc = await standInTool(dir, 'echo "pandoc: could not parse" >&2; exit 64');
    converter = await startConverter({
      SOFFICE_BIN: await silentSoffice(),
      PANDOC_BIN: failingPandoc,
    });
    const kept = await converter.post('/convert', [{ name: 'kept.docx', bytes: docx['k.txt']! }]);
    expect(kept.status).toBe(200);
    expect((await pdfText(Buffer.from(await kept.arrayBuffer()))).text).toContain(
      'Words of the last resort',
    );

    const lost = await converter.post('/convert', [{ name: 'lost.odt', bytes: odt['l.txt']! }]);
    expect(lost.status).toBe(422);
    const { error } = (await lost.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('conversion_failed');
    expect(error.message).toContain('LibreOffice: LibreOffice produced no PDF');
    expect(error.message).toContain('pandoc: ');
    expect(error.message).toContain('could not parse');
  });

  it('answers 504 when LibreOffice times out and pandoc cannot read the format', async () => {
    converter = await startConverter({
      SOFFICE_BIN: await standInTool(dir, 'sleep 60'),
      CONVERSION_TIMEOUT_MS: '500',
    });
    const res = await converter.post('/convert', [{ name: 'sheet.xlsx', bytes: xlsx['x.csv']! }]);
    expect(res.status).toBe(504);
    expect(((await res.json()) as any).error.code).toBe('conversion_timeout');
  });
});
