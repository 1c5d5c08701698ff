/**
 * Schemathesis against the task API's `/api-docs.json`: documented answers only, invalid input
 * rejected with a 4xx, no crash. Generated tasks go into a queue of their own (no worker reads
 * it) and are removed afterwards with the rest of the test's Redis keys, index and bucket.
 */
import { runSchemathesis } from '@pelita/fuzz';
import { isolatedNames, sharedState, startApi, type ApiUnderTest } from './support/api-under-test';

describe('ocr-service task API under schemathesis', () => {
  const names = isolatedNames();
  const state = sharedState(names);
  let api: ApiUnderTest;
  beforeAll(async () => {
    // A small queue bound: full-queue answers (429) are generated too.
    api = await startApi(names, { MAX_QUEUED_TASKS: '40', MAX_UPLOAD_BYTES: String(1024 * 1024) });
  });
  afterAll(async () => {
    await api?.stop();
    await state.cleanUp();
  });

  it('answers generated requests as documented, without crashing', async () => {
    const result = await runSchemathesis({ baseUrl: api.url, maxExamples: 30 });
    if (!result.passed) throw new Error(result.output);
    // Generated requests really reached the queue.
    expect(await state.queueLength()).toBeGreaterThan(0);
  }, 600_000);
});
