/**
 * The self-hosted MinerU task API against real poppler and tesseract: text layers, scanned
 * pages, images, the representation mode with a vision model (the LLM stand-in), and every
 * documented error answer.
 */
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import {
  PARAGRAPHS,
  pdfWithPicture,
  renderPng,
  scannedPdf,
  textPdf,
  wordRecall,
} from './support/documents';
import { startEngine, type EngineUnderTest } from './support/engine-under-test';

jest.setTimeout(120_000);

interface Item {
  type: string;
  text?: string;
  page_idx: number;
  bbox: number[];
}
const itemsOf = (contentList: string) => JSON.parse(contentList) as Item[];

describe('ocr-engine tasks', () => {
  let engine: EngineUnderTest;
  let stub: LlmStub;
  beforeAll(async () => {
    stub = await startLlmStub({ models: ['vision-stub'] });
    engine = await startEngine({ VISION_BASE_URL: stub.url, VISION_MODEL: 'vision-stub' });
  });
  afterAll(async () => {
    await engine.stop();
    await stub.close();
  });

  const result = async (taskId: string) => {
    const res = await fetch(`${engine.url}/tasks/${taskId}/result`);
    return { status: res.status, body: (await res.json()) as any };
  };

  it('reads a PDF text layer: 202 with the task, then the Markdown and content list per page', async () => {
    const submitted = await engine.submit([{ name: 'report.pdf', bytes: await textPdf(2) }], {
      return_content_list: 'true',
    });
    expect(submitted.status).toBe(202);
    const task = (await submitted.json()) as any;
    expect(task).toMatchObject({
      status: 'pending',
      backend: 'pipeline',
      file_names: ['report'],
      message: 'Task submitted successfully',
      status_url: `${engine.url}/tasks/${task.task_id}`,
      result_url: `${engine.url}/tasks/${task.task_id}/result`,
    });

    const done = await engine.finished(task.task_id);
    expect(done).toMatchObject({
      status: 'completed',
      error: null,
      extract_progress: { extracted_pages: 2, total_pages: 2 },
    });
    expect(Date.parse(String(done.started_at))).toBeLessThanOrEqual(
      Date.parse(String(done.completed_at)),
    );

    const { status, body } = await result(task.task_id);
    expect(status).toBe(200);
    expect(body).toMatchObject({ backend: 'pipeline', version: expect.any(String) });
    const file = body.results.report;
    expect(file.md_content).toBe(
      [1, 2].flatMap((page) => [`Page ${page}`, ...PARAGRAPHS]).join('\n\n'),
    );
    const items = itemsOf(file.content_list);
    expect(items).toHaveLength(8);
    expect(items[1]).toEqual({
      type: 'text',
      text: PARAGRAPHS[0],
      page_idx: 0,
      bbox: [expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number)],
    });
    expect(items[4]).toMatchObject({ text: 'Page 2', page_idx: 1 });
    // Boxes on MinerU's 0–1000 grid: the heading sits left, near the top.
    const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = items[0]?.bbox ?? [];
    expect(x0).toBeGreaterThan(90);
    expect(x0).toBeLessThan(x1);
    expect(y0).toBeLessThan(y1);
    expect(y1).toBeLessThan(100);
  });

  it('OCRs a scanned PDF (no text layer) in auto mode and recovers at least 95% of its words', async () => {
    const submitted = await engine.submit([{ name: 'scan.pdf', bytes: await scannedPdf(1) }]);
    const { task_id: taskId } = (await submitted.json()) as any;
    expect((await engine.finished(taskId)).status).toBe('completed');
    const { body } = await result(taskId);
    const text = body.results.scan.md_content as string;
    expect(wordRecall(['Page 1', ...PARAGRAPHS], text)).toBeGreaterThanOrEqual(0.95);
    expect(body.results.scan.content_list).toBeUndefined(); // not asked for
  });

  it('OCRs an image upload as one page', async () => {
    const png = await renderPng(await textPdf(1), 150);
    const submitted = await engine.submit([{ name: 'photo.png', bytes: png }], {
      return_content_list: 'true',
    });
    const { task_id: taskId } = (await submitted.json()) as any;
    expect((await engine.finished(taskId)).status).toBe('completed');
    const { body } = await result(taskId);
    expect(wordRecall(PARAGRAPHS, body.results.photo.md_content)).toBeGreaterThanOrEqual(0.95);
    const pages = new Set(itemsOf(body.results.photo.content_list).map((i) => i.page_idx));
    expect([...pages]).toEqual([0]);
  });

  it('txt reads only the text layer; ocr reads every page as an image; a page range is honoured', async () => {
    const scanned = await scannedPdf(1);
    const txt = (await (
      await engine.submit([{ name: 'a.pdf', bytes: scanned }], { parse_method: 'txt' })
    ).json()) as any;
    await engine.finished(txt.task_id);
    expect((await result(txt.task_id)).body.results.a.md_content).toBe('');

    const range = (await (
      await engine.submit([{ name: 'b.pdf', bytes: await textPdf(3) }], {
        parse_method: 'ocr',
        start_page_id: '1',
        end_page_id: '1',
        return_content_list: 'true',
      })
    ).json()) as any;
    const done = await engine.finished(range.task_id);
    expect(done.extract_progress).toEqual({ extracted_pages: 1, total_pages: 1 });
    const items = itemsOf((await result(range.task_id)).body.results.b.content_list);
    expect(new Set(items.map((item) => item.page_idx))).toEqual(new Set([1]));
    expect(wordRecall(['Page 2'], items.map((item) => item.text).join(' '))).toBe(1);
  });

  it('describes embedded images with the vision model when image_analysis is on, at most max_images', async () => {
    const before = stub.stats().calls.length;
    const submitted = await engine.submit(
      [{ name: 'pictured.pdf', bytes: await pdfWithPicture() }],
      {
        image_analysis: 'true',
        return_content_list: 'true',
        return_images: 'true',
      },
    );
    const { task_id: taskId } = (await submitted.json()) as any;
    expect((await engine.finished(taskId)).status).toBe('completed');
    const file = (await result(taskId)).body.results.pictured;
    const images = itemsOf(file.content_list).filter((item) => item.type === 'image');
    expect(images).toEqual([
      {
        type: 'image',
        img_path: 'images/image-1.png',
        image_caption: [expect.stringMatching(/\S/)],
        image_footnote: [],
        page_idx: 0,
        bbox: [0, 0, 1000, 1000],
      },
    ]);
    expect(file.md_content).toContain('![](images/image-1.png)');
    expect(file.images['image-1.png']).toMatch(/^data:image\/png;base64,iVBOR/);
    const calls = stub.stats().calls.slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.prompt).toContain('Describe this image');

    const none = (await (
      await engine.submit([{ name: 'p.pdf', bytes: await pdfWithPicture() }], {
        image_analysis: 'true',
        max_images: '0',
        return_content_list: 'true',
      })
    ).json()) as any;
    await engine.finished(none.task_id);
    const items = itemsOf((await result(none.task_id)).body.results.p.content_list);
    expect(items.some((item) => item.type === 'image')).toBe(false);
  });

  it('keys several files by their names, made unique', async () => {
    const pdf = await textPdf(1);
    const submitted = await engine.submit([
      { name: 'dir/same.pdf', bytes: pdf },
      { name: 'same.pdf', bytes: pdf },
    ]);
    const task = (await submitted.json()) as any;
    expect(task.file_names).toEqual(['same', 'same_2']);
    await engine.finished(task.task_id);
    expect(Object.keys((await result(task.task_id)).body.results)).toEqual(['same', 'same_2']);
  });

  it('fails a task whose PDF is broken: status failed with the reason, result 409', async () => {
    const broken = Buffer.from('%PDF-1.7\nthis is not really a PDF\n');
    const { task_id: taskId } = (await (
      await engine.submit([{ name: 'x.pdf', bytes: broken }])
    ).json()) as any;
    const done = await engine.finished(taskId);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/pdfinfo/);
    const { status, body } = await result(taskId);
    expect(status).toBe(409);
    expect(body).toMatchObject({ status: 'failed', message: 'Task execution failed' });
  });

  it('answers bad submissions with a 4xx JSON error', async () => {
    const unknown = await engine.submit([{ name: 'notes.txt', bytes: Buffer.from('plain text') }]);
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as any).error).toMatchObject({ code: 'unsupported_file_type' });

    const empty = await engine.submit([{ name: 'empty.pdf', bytes: Buffer.alloc(0) }]);
    expect(empty.status).toBe(400);

    const noFiles = await engine.submit([], { parse_method: 'auto' });
    expect(noFiles.status).toBe(400);
    expect(JSON.stringify(await noFiles.json())).toContain('files');

    const badMethod = await engine.submit([{ name: 'a.pdf', bytes: await textPdf(1) }], {
      parse_method: 'magic',
    });
    expect(badMethod.status).toBe(400);

    const zip = await engine.submit([{ name: 'a.pdf', bytes: await textPdf(1) }], {
      response_format_zip: 'true',
    });
    expect(zip.status).toBe(400);

    const json = await fetch(`${engine.url}/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(415);

    for (const path of ['/tasks/no-such-task', '/tasks/no-such-task/result']) {
      const missing = await fetch(`${engine.url}${path}`);
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as any).error.code).toBe('not_found');
    }
  });
});
