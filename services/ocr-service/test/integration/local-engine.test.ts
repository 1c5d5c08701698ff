/** The `local` engine client against Pelita's real OCR engine (poppler + tesseract), in-process. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import { createOcrEngineService, settingsSchema } from '@pelita/ocr-engine';
import { textPdf } from './support/documents';
import { EngineFailedError, EngineTimeoutError } from '../../src/engines/engine';
import { createLocalEngine } from '../../src/engines/local-engine';

jest.setTimeout(120_000);

const contract = (pages: number) => textPdf(pages, (page) => `Page ${page} of the contract`);

describe('local OCR engine client', () => {
  let dir: string;
  let engine: RunningServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'local-engine-'));
    const logger = createLogger({
      name: 'ocr-engine',
      destination: new Writable({ write: (_chunk, _encoding, done) => done() }),
    });
    const settings = loadConfig(settingsSchema, { TASK_DIR: join(dir, 'tasks') });
    engine = await serveInProcess(createOcrEngineService(settings, logger), logger);
  });
  afterAll(async () => {
    await engine.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const client = (overrides: Partial<Parameters<typeof createLocalEngine>[0]> = {}) =>
    createLocalEngine({
      baseUrl: engine.url,
      pollIntervalMs: 50,
      maxPolls: 600,
      requestTimeoutMs: 10_000,
      ...overrides,
    });
  const file = async (name: string, bytes: Buffer) => {
    await writeFile(join(dir, name), bytes);
    return { path: join(dir, name), name, typeOcr: 'ekstrak_only' as const, representasiCount: 3 };
  };

  it("turns a PDF into the seed's lists, reporting page progress", async () => {
    const progress: Array<[number, number]> = [];
    const output = await client().process(
      await file('contract.pdf', await contract(3)),
      (done, total) => progress.push([done, total]),
    );
    expect(output.contentList).toEqual(
      [1, 2, 3].map((page) => ({ page, type: 'text', content: `Page ${page} of the contract` })),
    );
    expect(output.mdContentList).toEqual(
      [1, 2, 3].map((page) => ({ page, markdown: `Page ${page} of the contract` })),
    );
    expect(progress[0]).toEqual([0, 0]);
    expect(progress.at(-1)).toEqual([3, 3]);
  });

  it('gives up after its poll budget with the seed\'s "Task timeout" (504)', async () => {
    const error = await client({ maxPolls: 1 })
      .process(await file('slow.pdf', await contract(30)), () => undefined)
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(EngineTimeoutError);
    expect(error).toMatchObject({ message: 'Task timeout', code: 504 });
  });

  it('reports a task the engine failed, and an engine that is down', async () => {
    const broken = await client()
      .process(await file('broken.pdf', Buffer.from('%PDF-1.7\nnot a pdf\n')), () => undefined)
      .catch((err: unknown) => err);
    expect(broken).toBeInstanceOf(EngineFailedError);
    expect((broken as Error).message).toMatch(/pdfinfo/);

    const refused = await client()
      .process(await file('notes.txt', Buffer.from('plain text')), () => undefined)
      .catch((err: unknown) => err);
    expect(refused).toMatchObject({
      code: 400,
      message: expect.stringContaining('refused the file (400)'),
    });

    const down = await client({ baseUrl: 'http://127.0.0.1:1' })
      .process(await file('a.pdf', await contract(1)), () => undefined)
      .catch((err: unknown) => err);
    expect(down).toMatchObject({ code: 502, message: expect.stringContaining('unreachable') });
  });
});
