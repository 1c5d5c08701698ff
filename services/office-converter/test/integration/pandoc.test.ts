/**
 * The second converter: documents LibreOffice fails on (a stand-in `soffice` that exits without
 * writing a PDF, or one that outlasts the time limit) are converted by the real pandoc; with
 * pandoc failing too, a `.docx` still falls back to its text and other files get a clear answer.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  officeFile,
  pdfText,
  standInTool,
  startConverter,
  type ConverterUnderTest,
} from './support/converter-under-test';

jest.setTimeout(120_000);

describe('office-converter second converter (pandoc)', () => {
  let dir: string;
  let converter: ConverterUnderTest | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'converter-pandoc-'));
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
      {
        name: 'memo.docx',
        bytes: await officeFile('m.txt', 'Memo kept by pandoc', 'docx:MS Word 2007 XML'),
      },
      { name: 'notes.odt', bytes: await officeFile('n.txt', 'Notes kept by pandoc', 'odt') },
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
    const res = await converter.post('/convert', [
      {
        name: 'slow.docx',
        bytes: await officeFile('s.txt', 'Read after the hang', 'docx:MS Word 2007 XML'),
      },
    ]);
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
    const kept = await converter.post('/convert', [
      {
        name: 'kept.docx',
        bytes: await officeFile('k.txt', 'Words of the last resort', 'docx:MS Word 2007 XML'),
      },
    ]);
    expect(kept.status).toBe(200);
    expect((await pdfText(Buffer.from(await kept.arrayBuffer()))).text).toContain(
      'Words of the last resort',
    );

    const lost = await converter.post('/convert', [
      { name: 'lost.odt', bytes: await officeFile('l.txt', 'x', 'odt') },
    ]);
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
    const res = await converter.post('/convert', [
      { name: 'sheet.xlsx', bytes: await officeFile('x.csv', 'a,b\n1,2\n', 'xlsx') },
    ]);
    expect(res.status).toBe(504);
    expect(((await res.json()) as any).error.code).toBe('conversion_timeout');
  });
});
