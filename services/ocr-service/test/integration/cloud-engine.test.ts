/** The `cloud` engine client against the MinerU cloud double: the whole protocol and its faults. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMineruCloudStub, type MineruCloudStub } from '@pelita/mineru-cloud-stub';
import { pngOf, textPdf } from './support/documents';
import { EngineFailedError, EngineTimeoutError } from '../../src/engines/engine';
import { createCloudEngine, type CloudEngineOptions } from '../../src/engines/cloud-engine';

jest.setTimeout(60_000);

describe('cloud OCR engine client', () => {
  let stub: MineruCloudStub;
  let dir: string;
  beforeAll(async () => {
    stub = await startMineruCloudStub({ token: 'cloud-key', pageMs: 10 });
    dir = await mkdtemp(join(tmpdir(), 'cloud-engine-'));
  });
  afterEach(() => stub.setFaults([]));
  afterAll(async () => {
    await stub.close();
    await rm(dir, { recursive: true, force: true });
  });

  const engine = (overrides: Partial<CloudEngineOptions> = {}) =>
    createCloudEngine({
      baseUrl: stub.url,
      apiKey: 'cloud-key',
      pollIntervalMs: 20,
      maxPolls: 500,
      requestTimeoutMs: 5000,
      downloadTimeoutMs: 2000,
      maxResultEntries: 100,
      maxResultBytes: 1024 * 1024,
      ...overrides,
    });
  const request = async (name: string, pages = 2) => {
    await writeFile(join(dir, name), await textPdf(pages, (p) => `Clause ${p} of the agreement`));
    return { path: join(dir, name), name, typeOcr: 'ekstrak_only' as const, representasiCount: 3 };
  };
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (err: unknown) => err,
    );

  it("uploads, polls with progress, downloads the archive and answers the seed's lists", async () => {
    const progress: Array<[number, number]> = [];
    const output = await engine().process(await request('agreement.pdf', 3), (done, total) =>
      progress.push([done, total]),
    );
    expect(output.contentList.map((item) => [item.page, item.content])).toEqual([
      [1, 'Clause 1 of the agreement'],
      [2, 'Clause 2 of the agreement'],
      [3, 'Clause 3 of the agreement'],
    ]);
    expect(output.mdContentList.map((page) => page.page)).toEqual([1, 2, 3]);
    // (0, 0): the engine has the file; then page progress.
    expect(progress[0]).toEqual([0, 0]);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.slice(1).every(([, total]) => total === 3)).toBe(true);
    const file = stub.stats().files.find((record) => record.fileName === 'agreement.pdf');
    expect(file?.options).toMatchObject({
      language: 'en',
      enable_formula: true,
      enable_table: true,
    });
  });

  it("sends the seed's options in MinerU's terms, and applies type_ocr and representasi_count to the images", async () => {
    const png = await pngOf(await textPdf(1, () => 'A photographed receipt'));
    const imagesOf = async (
      name: string,
      typeOcr: 'ekstrak_only' | 'representasi',
      representasiCount: number,
    ) => {
      await writeFile(join(dir, name), png);
      const output = await engine().process(
        { path: join(dir, name), name, typeOcr, representasiCount },
        () => undefined,
      );
      return output.contentList.filter((item) => item.type === 'image').length;
    };
    // The double answers a picture with one image block.
    expect(await imagesOf('kept.png', 'representasi', 1)).toBe(1);
    expect(await imagesOf('none-asked.png', 'representasi', 0)).toBe(0);
    expect(await imagesOf('text-only.png', 'ekstrak_only', 3)).toBe(0);
    // What the double received, for every one of them: lang=en, parse_method=auto (pipeline,
    // is_ocr off), formula and table on. The double refuses unknown fields and languages.
    for (const name of ['kept.png', 'none-asked.png', 'text-only.png']) {
      expect(stub.stats().files.find((record) => record.fileName === name)?.options).toEqual({
        model_version: 'pipeline',
        language: 'en',
        is_ocr: false,
        enable_formula: true,
        enable_table: true,
      });
    }
  });

  it('gives up after its poll budget on a task that never finishes (Task timeout, 504)', async () => {
    stub.setFaults([{ match: /^stuck/, fault: { kind: 'never-finish' } }]);
    const error = await failure(
      engine({ maxPolls: 10 }).process(await request('stuck.pdf'), () => undefined),
    );
    expect(error).toBeInstanceOf(EngineTimeoutError);
    expect(error).toMatchObject({ message: 'Task timeout', code: 504 });
  });

  it('passes on the reason of a failed task, a rejected upload, a broken archive and a wrong key', async () => {
    stub.setFaults([
      { match: /^failing/, fault: { kind: 'fail', code: -60010, message: 'parse failed' } },
      { match: /^rejected/, fault: { kind: 'upload-rejected', status: 503 } },
      { match: /^broken/, fault: { kind: 'bad-zip', mode: 'truncated' } },
    ]);
    expect(
      await failure(engine().process(await request('failing.pdf'), () => undefined)),
    ).toMatchObject({
      message: 'parse failed',
      code: -60010,
    });
    expect(
      await failure(engine().process(await request('rejected.pdf'), () => undefined)),
    ).toMatchObject({
      message: expect.stringContaining('upload'),
      code: 503,
    });
    const broken = await failure(engine().process(await request('broken.pdf'), () => undefined));
    expect(broken).toBeInstanceOf(EngineFailedError);
    expect((broken as Error).message).toContain('archive');
    expect(
      await failure(engine({ apiKey: 'wrong' }).process(await request('key.pdf'), () => undefined)),
    ).toMatchObject({
      code: 401,
    });
  });

  it('rides out failing polls, and gives up on a stalled download', async () => {
    stub.setFaults([
      { match: /^flaky/, times: 2, fault: { kind: 'status-error', status: 502 } },
      { match: /^stalled/, fault: { kind: 'download-stall' } },
    ]);
    const output = await engine().process(await request('flaky.pdf'), () => undefined);
    expect(output.contentList).toHaveLength(2);
    expect(stub.stats().pollErrors).toBeGreaterThanOrEqual(2);
    const stalled = await failure(
      engine({ downloadTimeoutMs: 500 }).process(await request('stalled.pdf'), () => undefined),
    );
    expect(stalled).toMatchObject({ message: expect.stringContaining('download') });
  });

  it('refuses a result archive that is a zip bomb, deep or wide, within its limits', async () => {
    stub.setFaults([
      {
        match: /^deep/,
        fault: { kind: 'zip-bomb', shape: 'deep', inflatedBytes: 64 * 1024 * 1024 },
      },
      { match: /^wide/, fault: { kind: 'zip-bomb', shape: 'wide', entries: 101 } },
    ]);
    const deep = await failure(engine().process(await request('deep.pdf'), () => undefined));
    expect(deep).toBeInstanceOf(EngineFailedError);
    expect(deep).toMatchObject({
      message: 'the result archive is too large: its files inflate to more than 1048576 bytes',
      code: 502,
    });
    const wide = await failure(engine().process(await request('wide.pdf'), () => undefined));
    expect(wide).toMatchObject({
      message: 'the result archive is too large: 101 entries, more than 100',
      code: 502,
    });
    // Within the limits the same shapes are read: an archive of 100 entries is fine.
    stub.setFaults([{ match: /^wide/, fault: { kind: 'zip-bomb', shape: 'wide', entries: 100 } }]);
    expect(
      (await engine().process(await request('wide-ok.pdf'), () => undefined)).contentList,
    ).toEqual([]);
  });
});
