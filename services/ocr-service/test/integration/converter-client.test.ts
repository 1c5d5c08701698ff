/** The converter client against the real office converter (LibreOffice), in-process. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import { createOfficeConverterService, settingsSchema } from '@pelita/office-converter';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { ConversionError, createConverterClient } from '../../src/conversion/converter-client';

jest.setTimeout(120_000);
const run = promisify(execFile);

describe('office converter client', () => {
  let dir: string;
  let converter: RunningServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'converter-client-'));
    const logger = createLogger({ name: 'office-converter', level: 'silent' });
    converter = await serveInProcess(
      createOfficeConverterService(loadConfig(settingsSchema, {}), logger),
      logger,
    );
  });
  afterAll(async () => {
    await converter.stop();
    await rm(dir, { recursive: true, force: true });
  });
  const client = () => createConverterClient({ baseUrl: converter.url, timeoutMs: 60_000 });
  const text = async (pdf: string) => (await run('pdftotext', [pdf, '-'])).stdout;

  it('converts a .docx and merges it after a PDF', async () => {
    await writeFile(join(dir, 'memo.txt'), 'Memo about the Bandung warehouse');
    await run('soffice', [
      '--headless',
      `-env:UserInstallation=file://${join(dir, 'profile')}`,
      '--convert-to',
      'docx:MS Word 2007 XML',
      '--outdir',
      dir,
      join(dir, 'memo.txt'),
    ]);
    await client().toPdf(join(dir, 'memo.docx'), join(dir, 'memo.pdf'));
    expect(await text(join(dir, 'memo.pdf'))).toContain('Memo about the Bandung warehouse');

    const cover = await PDFDocument.create();
    const font = await cover.embedFont(StandardFonts.Helvetica);
    cover.addPage([595, 842]).drawText('Cover page', { x: 60, y: 760, size: 14, font });
    await writeFile(join(dir, 'cover.pdf'), await cover.save());
    const pages = await client().merge(
      [join(dir, 'cover.pdf'), join(dir, 'memo.docx')],
      join(dir, 'merged.pdf'),
    );
    expect(pages).toBe(2);
    const merged = await text(join(dir, 'merged.pdf'));
    expect(merged.indexOf('Cover page')).toBeLessThan(merged.indexOf('Memo about'));
    expect((await readFile(join(dir, 'merged.pdf'))).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it("passes on the converter's reason, and a converter that is down", async () => {
    await writeFile(join(dir, 'notes.txt'), 'plain text');
    const refused = await client()
      .toPdf(join(dir, 'notes.txt'), join(dir, 'x.pdf'))
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ConversionError);
    expect(refused).toMatchObject({
      status: 400,
      message: expect.stringContaining('Unsupported file type'),
    });
    const down = await createConverterClient({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 2000 })
      .toPdf(join(dir, 'notes.txt'), join(dir, 'y.pdf'))
      .catch((err: unknown) => err);
    expect(down).toMatchObject({ status: 502, message: expect.stringContaining('unreachable') });
  });
});
