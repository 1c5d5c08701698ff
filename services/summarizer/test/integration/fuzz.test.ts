/**
 * schemathesis against the summarizer's OpenAPI document, with the LLM stand-in as the model
 * server: generated multipart forms (files of arbitrary bytes, any parameter values) get only
 * documented answers, invalid ones a 4xx, and every 200 body matches the result file schema.
 */
import { runSchemathesis } from '@pelita/fuzz';
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { startSummarizer, type SummarizerUnderTest } from './support/summarizer-under-test';

describe('the summarizer under schemathesis', () => {
  let stub: LlmStub;
  let service: SummarizerUnderTest;

  beforeAll(async () => {
    stub = await startLlmStub();
    service = await startSummarizer({ BASE_URL_LOCAL: stub.url, LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    await service.stop();
    await stub.close();
  });

  it('answers generated requests as documented, without crashing', async () => {
    const result = await runSchemathesis({ baseUrl: service.url, maxExamples: 60 });
    if (!result.passed) throw new Error(result.output);
    expect(await service.leftovers()).toEqual([]);
  }, 300_000);
});
