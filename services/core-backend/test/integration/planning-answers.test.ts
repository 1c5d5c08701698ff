/**
 * The planning answers of text-to-SQL and text-to-API against the LLM stand-in playing each kind
 * of model server: one that honours the json_schema sent, one that ignores it, one that only
 * knows json_object, one that refuses response_format; and an answer that never parses.
 */
import { createTargetPolicy, parseAllowedTargets } from '@pelita/kit';
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { createModelClient, type ModelChoice } from '../../src/chats/model-client';
import { ENDPOINT_ANSWER, SQL_ANSWER } from '../../src/chats/source-lookups';

const SQL_TURNS = [
  {
    role: 'system' as const,
    content:
      'You write SQL for a postgres database. Answer with a JSON object {"sql": "<one SELECT>"}.\n' +
      '<schema>\norders(id int, total decimal)\ncustomers(id int, name text)\n</schema>',
  },
  { role: 'user' as const, content: 'How many customers are there?' },
];
const ENDPOINT_TURNS = [
  {
    role: 'system' as const,
    content:
      'Choose the endpoint. Answer with JSON only.\n<endpoints>\n' +
      'e1 | GET /orders | one order | params: id\ne2 | GET /customers | customers | params: \n' +
      '</endpoints>',
  },
  { role: 'user' as const, content: 'Show the order id=7' },
];

describe('planning answers', () => {
  let stub: LlmStub;
  const client = () =>
    createModelClient({
      timeoutMs: 5000,
      maxRetries: 0,
      targetPolicy: createTargetPolicy(parseAllowedTargets([])),
    });
  const choice = (): ModelChoice => ({
    model: 'pelita-stub',
    baseUrl: stub.url,
    apiKey: undefined,
  });
  const sent = () => stub.stats().calls.map((call) => `${call.responseFormat}:${call.status}`);

  beforeAll(async () => {
    stub = await startLlmStub();
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    stub.resetStats();
    stub.setFaults([]);
    stub.configure({ structuredOutput: 'honour', maxModelLen: 32_768, requireSchema: false });
  });

  it('a server that honours the schema: parsed at once, both shapes sent as strict schemas', async () => {
    stub.configure({ requireSchema: true });
    const models = client();
    const sql = await models.completeJson(choice(), SQL_TURNS, SQL_ANSWER);
    expect(sql.value).toEqual({ sql: 'SELECT * FROM customers LIMIT 20' });
    const endpoint = await models.completeJson(choice(), ENDPOINT_TURNS, ENDPOINT_ANSWER);
    expect(endpoint.value).toEqual({ endpoint_id: 'e1', params: [{ name: 'id', value: '7' }] });
    const calls = stub.stats().calls;
    expect(calls.map((call) => call.jsonSchema)).toEqual([
      { name: 'sql_query', schema: SQL_ANSWER.jsonSchema, strict: true },
      { name: 'endpoint_choice', schema: ENDPOINT_ANSWER.jsonSchema, strict: true },
    ]);
    expect(calls.every((call) => call.maxTokens === 1024)).toBe(true);
  });

  it('a server that ignores it: an answer that does not parse is asked once more', async () => {
    stub.configure({ structuredOutput: 'ignore' });
    stub.setFaults([{ times: 1, fault: { kind: 'malformed' } }]);
    const endpoint = await client().completeJson(choice(), ENDPOINT_TURNS, ENDPOINT_ANSWER);
    expect(endpoint.value?.endpoint_id).toBe('e1');
    expect(sent()).toEqual(['json_schema:200', 'json_schema:200']);
  });

  it('an answer that never parses: no value, the text kept (SQL is then read from it)', async () => {
    stub.configure({ structuredOutput: 'ignore' });
    const sql = await client().completeJson(choice(), SQL_TURNS, SQL_ANSWER);
    expect(sql).toEqual({ value: undefined, content: 'SELECT * FROM customers LIMIT 20' });
    expect(sent()).toHaveLength(2);
  });

  it('a server that only knows json_object: refused once, json_object from then on', async () => {
    stub.configure({ structuredOutput: 'json_object' });
    const models = client();
    await models.completeJson(choice(), ENDPOINT_TURNS, ENDPOINT_ANSWER);
    const second = await models.completeJson(choice(), ENDPOINT_TURNS, ENDPOINT_ANSWER);
    expect(second.value?.endpoint_id).toBe('e1');
    expect(sent()).toEqual(['json_schema:400', 'json_object:200', 'json_object:200']);
  });

  it('a server that refuses response_format: prompt-only from then on', async () => {
    stub.configure({ structuredOutput: 'none' });
    const models = client();
    await models.completeJson(choice(), ENDPOINT_TURNS, ENDPOINT_ANSWER);
    const second = await models.completeJson(choice(), ENDPOINT_TURNS, ENDPOINT_ANSWER);
    expect(second.value?.params).toEqual([{ name: 'id', value: '7' }]);
    expect(sent()).toEqual([
      'json_schema:400',
      'json_object:400',
      'undefined:200',
      'undefined:200',
    ]);
  });

  it('asks for no more tokens than the context the model list reports leaves', async () => {
    stub.configure({ maxModelLen: 400 });
    const sql = await client().completeJson(choice(), SQL_TURNS, SQL_ANSWER);
    expect(sql.value?.sql).toMatch(/^SELECT/);
    const [call] = stub.stats().calls;
    expect(call!.status).toBe(200);
    expect(call!.maxTokens).toBeLessThan(400);
    expect(call!.usage!.prompt_tokens + call!.maxTokens!).toBeLessThanOrEqual(400);
  });

  it('a model server that fails is the HTTP error the caller reports', async () => {
    stub.setFaults([{ fault: { kind: 'status', status: 500 } }]);
    await expect(client().completeJson(choice(), SQL_TURNS, SQL_ANSWER)).rejects.toMatchObject({
      status: 502,
    });
  });
});
