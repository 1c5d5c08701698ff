/** The bounded queue (503 with Retry-After when full), queue positions, results while running, retention. */
import { scannedPdf, textPdf } from './support/documents';
import { startEngine, type EngineUnderTest } from './support/engine-under-test';

jest.setTimeout(120_000);

describe('ocr-engine queue', () => {
  let engine: EngineUnderTest;
  afterEach(() => engine?.stop());

  it('answers 503 with Retry-After once MAX_QUEUED_TASKS wait, and reports queue positions', async () => {
    engine = await startEngine({
      MAX_CONCURRENT_TASKS: '1',
      MAX_QUEUED_TASKS: '1',
      OCR_DPI: '300',
    });
    const slow = await scannedPdf(4);
    const first = (await (await engine.submit([{ name: 'a.pdf', bytes: slow }])).json()) as any;
    // The first runs as soon as it is queued; wait until it does, so the next one waits.
    for (;;) {
      const status = (await (await fetch(`${engine.url}/tasks/${first.task_id}`)).json()) as any;
      if (status.status === 'processing') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const second = await engine.submit([{ name: 'b.pdf', bytes: slow }]);
    expect(second.status).toBe(202);
    const waiting = (await second.json()) as any;
    expect(waiting.queued_ahead).toBe(0);

    const refused = await engine.submit([{ name: 'c.pdf', bytes: await textPdf(1) }]);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(((await refused.json()) as any).error.code).toBe('queue_full');

    const pending = await fetch(`${engine.url}/tasks/${waiting.task_id}/result`);
    expect(pending.status).toBe(202);
    expect(((await pending.json()) as any).message).toBe('Task result is not ready yet');

    const health = (await (await fetch(`${engine.url}/health`)).json()) as any;
    expect(health).toMatchObject({ status: 'healthy', queued: 1, processing: 1 });
    const metrics = await (await fetch(`${engine.url}/metrics`)).text();
    expect(metrics).toContain('ocr_engine_queue_depth 1');

    expect((await engine.finished(first.task_id)).status).toBe('completed');
    expect((await engine.finished(waiting.task_id)).status).toBe('completed');
  });

  it('removes finished tasks after TASK_RETENTION_SECONDS (404 afterwards)', async () => {
    engine = await startEngine({ TASK_RETENTION_SECONDS: '1' });
    const task = (await (
      await engine.submit([{ name: 'a.pdf', bytes: await textPdf(1) }])
    ).json()) as any;
    expect((await engine.finished(task.task_id)).status).toBe('completed');
    for (;;) {
      const res = await fetch(`${engine.url}/tasks/${task.task_id}`);
      if (res.status === 404) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await fetch(`${engine.url}/tasks/${task.task_id}/result`)).status).toBe(404);
  });
});
