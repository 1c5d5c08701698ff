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
    const result = await runSchemathesis({ baseUrl: converter.url, maxExamples: 30 });
    if (!result.passed) throw new Error(result.output);
  }, 600_000);
});
