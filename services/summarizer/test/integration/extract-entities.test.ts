/** `POST /extract_entities` against the LLM stand-in: the entities file of the spec. */
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { waitFor } from '@pelita/testenv';
import { emptyEntities } from '../../src/entities';
import { EntitiesFileSchema } from '../../src/output-files';
import {
  postForm,
  sentences,
  startSummarizer,
  textForm,
  type SummarizerUnderTest,
} from './support/summarizer-under-test';

describe('POST /extract_entities', () => {
  let stub: LlmStub;
  let service: SummarizerUnderTest;
  const extract = (text: string) => postForm(`${service.url}/extract_entities`, textForm(text));

  beforeAll(async () => {
    stub = await startLlmStub();
    service = await startSummarizer({ BASE_URL_LOCAL: stub.url, LLM_MAX_CONCURRENCY: '4' });
  });
  afterAll(async () => {
    await service.stop();
    await stub.close();
  });
  beforeEach(() => {
    stub.resetStats();
    stub.configure({ includeUsage: true });
  });

  it('answers entities_YYYYMMDD_HHMMSS.json with the entities, the input tokens and a timestamp', async () => {
    const before = Date.now();
    const res = await extract(
      'Budi Santoso flew from Soekarno Airport to Singapore on 17 August 1945 at 10:30 AM. ' +
        'He spoke at the Jakarta Fair Festival of the Pelita Foundation near Mount Bromo.',
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="?entities_\d{8}_\d{6}\.json"?$/,
    );
    const file = EntitiesFileSchema.parse(res.body);
    expect(file.named_entities).toEqual({
      PER: ['Budi Santoso'],
      ORG: ['Pelita Foundation'],
      GPE: ['Singapore'],
      LOC: ['Mount Bromo'],
      DATE: ['17 August 1945'],
      TIME: ['10:30 AM'],
      EVENT: ['Jakarta Fair Festival'],
      FAC: ['Soekarno Airport'],
    });
    const [call] = stub.stats().calls;
    expect(call?.asked).toEqual(['named_entities']);
    expect(file.input_tokens).toBe(call?.usage?.prompt_tokens);
    expect(Date.parse(file.timestamp)).toBeGreaterThanOrEqual(before - 1000);
    await waitFor(async () => (await service.leftovers()).length === 0, 'no temporary files');
  });

  it('splits a long text into 10,000-word chunks and merges their entities without duplicates', async () => {
    const part = (name: string) => `${name} arrived in Jakarta. ${sentences(999)}`;
    const res = await extract(
      `${part('Ani Wijaya')} ${part('Rudi Hartono')} ${part('Ani Wijaya')}`,
    );
    const file = EntitiesFileSchema.parse(res.body);
    expect(stub.stats().calls).toHaveLength(3);
    expect(file.named_entities).toEqual({
      ...emptyEntities(),
      PER: ['Ani Wijaya', 'Rudi Hartono'],
      GPE: ['Jakarta'],
    });
    const tokens = stub
      .stats()
      .calls.reduce((sum, call) => sum + (call.usage?.prompt_tokens ?? 0), 0);
    expect(file.input_tokens).toBe(tokens);
  });

  it('estimates input tokens (words × 1.4) when the server reports no usage', async () => {
    stub.configure({ includeUsage: false });
    const file = EntitiesFileSchema.parse((await extract(sentences(10))).body);
    expect(file.input_tokens).toBe(140);
  });
});
