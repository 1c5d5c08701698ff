/** Schemathesis against the converter's `/api-docs.json`: documented answers, 4xx for bad input, no crash. */
import { runSchemathesis } from '@pelita/fuzz';
import { startConverter, type ConverterUnderTest } from './support/converter-under-test';

describe('office-converter under schemathesis', () => {
  let converter: ConverterUnderTest;
  beforeAll(async () => {
    converter = await startConverter({ CONVERSION_TIMEOUT_MS: '20000' });
  });
  afterAll(() => converter.stop());

  it('answers generated requests as documented, without crashing', async () => {
    // 10, not 30: the same reach (FUZZ_REACH_FILE, seed 1): 12 (operation, status) and 20
    // (operation, check) pairs at both sizes; the extra cases were real conversions of 3-11 s.
    const result = await runSchemathesis({ baseUrl: converter.url, maxExamples: 10 });
    if (!result.passed) throw new Error(result.output);
  }, 600_000);
});
