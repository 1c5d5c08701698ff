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
    // 10, not 40: the same reach (FUZZ_REACH_FILE, seed 1): 15 (operation, status) and 25
    // (operation, check) pairs at both sizes.
    const result = await runSchemathesis({ baseUrl: engine.url, maxExamples: 10 });
    if (!result.passed) throw new Error(result.output);
  }, 300_000);
});
