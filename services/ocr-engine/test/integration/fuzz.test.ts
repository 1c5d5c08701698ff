/** Schemathesis against the engine's `/api-docs.json`: documented answers, 4xx for bad input, no crash. */
import { runSchemathesis } from '@pelita/fuzz';
import { startEngine, type EngineUnderTest } from './support/engine-under-test';

describe('ocr-engine under schemathesis', () => {
  let engine: EngineUnderTest;
  beforeAll(async () => {
    engine = await startEngine({ MAX_QUEUED_TASKS: '1000' });
  });
  afterAll(() => engine.stop());

  it('answers generated requests as documented, without crashing', async () => {
    const result = await runSchemathesis({ baseUrl: engine.url, maxExamples: 40 });
    if (!result.passed) throw new Error(result.output);
  }, 300_000);
});
