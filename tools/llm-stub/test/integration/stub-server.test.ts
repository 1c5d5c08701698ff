/**
 * The stand-in over real HTTP, through the openai SDK the summarizer uses: model list, answers
 * streamed and not, usage, faults, the control API, and the process entry.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import OpenAI, { APIConnectionError, InternalServerError, NotFoundError, toFile } from 'openai';
import { makeWav, startLlmStub, type LlmStub } from '../../src';

const SYSTEM = 'Return JSON: {"summary": "...", "key_points": [], "named_entities": {}}';
const DOCUMENT =
  'Budi Santoso opened the bridge in Jakarta. Many people came to see it. The mayor spoke.';

const ask = (client: OpenAI, document = DOCUMENT) =>
  client.chat.completions.create({
    model: 'pelita-stub',
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `<document>\n${document}\n</document>` },
    ],
  });

describe('the LLM stand-in', () => {
  let stub: LlmStub;
  let client: OpenAI;

  beforeAll(async () => {
    stub = await startLlmStub({ maxModelLen: 4096, shrinkFraction: 0.5 });
    client = new OpenAI({ baseURL: stub.url, apiKey: 'any', maxRetries: 0 });
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    stub.resetStats();
    stub.setFaults([]);
    stub.configure({ latencyMs: 0, summaryMode: 'shrink', includeUsage: true });
  });

  it('lists its models with their maximum length', async () => {
    const page = await client.models.list();
    expect(page.data).toEqual([
      expect.objectContaining({ id: 'pelita-stub', object: 'model', max_model_len: 4096 }),
    ]);
  });

  it('embeds text through the openai client, as floats and as base64', async () => {
    const floats = await client.embeddings.create({
      model: 'pelita-stub',
      input: ['the controller approves', 'the controller approves'],
      encoding_format: 'float',
    });
    expect(floats.data.map((item) => item.index)).toEqual([0, 1]);
    expect(floats.data[0]!.embedding).toHaveLength(64);
    expect(floats.data[1]!.embedding).toEqual(floats.data[0]!.embedding);
    expect(floats.usage.prompt_tokens).toBe(6);
    // The client asks for base64 by default and decodes it.
    const decoded = await client.embeddings.create({
      model: 'pelita-stub',
      input: 'the controller approves',
      dimensions: 16,
    });
    expect(decoded.data[0]!.embedding).toHaveLength(16);
    expect(stub.stats()).toMatchObject({ embeddingCalls: 2, embeddedTexts: 3 });
    await expect(
      client.embeddings.create({ model: 'pelita-stub', input: [] }),
    ).rejects.toMatchObject({
      status: 400,
    });
    await expect(client.embeddings.create({ model: 'nope', input: 'x' })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('transcribes a WAV file through the openai client: its script, speakers, timings, settings', async () => {
    const wav = makeWav({
      seconds: 12.5,
      script: 'Ana: We ship 3 releases a year.\nBen: Only 2 this year.\nAna: Agreed.',
    });
    const file = await toFile(wav, 'meeting.wav');
    // Fields beyond OpenAI's own (diarising servers') travel in the same form.
    const extra = { diarize: true, suppress_numerals: true } as object;
    const verbose = await client.audio.transcriptions.create({
      file,
      model: 'pelita-stub',
      response_format: 'verbose_json',
      ...extra,
    });
    expect(verbose).toMatchObject({
      language: 'en',
      duration: 12.5,
      text: 'We ship three releases a year. Only two this year. Agreed.',
    });
    const segments = (verbose as unknown as { segments: Array<Record<string, unknown>> }).segments;
    expect(segments.map((s) => s.speaker)).toEqual(['SPEAKER_00', 'SPEAKER_01', 'SPEAKER_00']);
    expect(segments[1]).toMatchObject({ start: segments[0]!.end, text: 'Only two this year.' });
    expect(stub.stats().transcriptions).toEqual([
      expect.objectContaining({
        model: 'pelita-stub',
        fileName: 'meeting.wav',
        bytes: wav.length,
        diarize: true,
        suppressNumerals: true,
        status: 200,
      }),
    ]);

    // Without a script: words drawn from the bytes, the same every time; no speakers unasked.
    const silent = await toFile(makeWav({ seconds: 2 }), 'quiet.wav');
    const first = await client.audio.transcriptions.create({ file: silent, model: 'pelita-stub' });
    const again = await client.audio.transcriptions.create({ file: silent, model: 'pelita-stub' });
    expect(first.text.split(' ').length).toBeGreaterThan(10);
    expect(again.text).toBe(first.text);

    await expect(
      client.audio.transcriptions.create({
        file: await toFile(Buffer.from('not audio'), 'notes.txt'),
        model: 'pelita-stub',
      }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      client.audio.transcriptions.create({ file: silent, model: 'nope' }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('answers the JSON keys the instructions ask for, derived from the document, with usage', async () => {
    const completion = await ask(client);
    const answer = JSON.parse(completion.choices[0]?.message.content ?? '');
    expect(Object.keys(answer)).toEqual(['summary', 'key_points', 'named_entities']);
    expect(answer.summary).toBe('Budi Santoso opened the bridge in Jakarta.');
    expect(answer.named_entities.GPE).toEqual(['Jakarta']);
    expect(answer.named_entities.PER).toEqual(['Budi Santoso']);
    expect(completion.usage).toEqual({
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
      total_tokens: expect.any(Number),
    });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    const [call] = stub.stats().calls;
    expect(call).toMatchObject({
      document: DOCUMENT,
      asked: ['summary', 'key_points', 'named_entities'],
    });
    expect(call?.usage).toEqual(completion.usage);
  });

  it('streams the same answer as server-sent events, usage last when asked', async () => {
    const plain = (await ask(client)).choices[0]?.message.content;
    const stream = await client.chat.completions.create({
      model: 'pelita-stub',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: `<document>\n${DOCUMENT}\n</document>` },
      ],
    });
    let text = '';
    let usage: unknown;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(plain);
    expect(finish).toBe('stop');
    expect(usage).toEqual(expect.objectContaining({ total_tokens: expect.any(Number) }));
  });

  it('answers prose when no JSON keys are asked for', async () => {
    const completion = await client.chat.completions.create({
      model: 'pelita-stub',
      messages: [{ role: 'user', content: DOCUMENT }],
    });
    expect(completion.choices[0]?.message.content).toBe(
      'Budi Santoso opened the bridge in Jakarta.',
    );
  });

  it('echoes the whole input in echo mode, and leaves usage out when told', async () => {
    stub.configure({ summaryMode: 'echo', includeUsage: false });
    const completion = await ask(client);
    expect(JSON.parse(completion.choices[0]?.message.content ?? '').summary).toBe(DOCUMENT);
    expect(completion.usage).toBeUndefined();
  });

  it('rejects unknown models like vLLM does', async () => {
    await expect(
      client.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('scripts error statuses with retry hints, per pattern and count', async () => {
    stub.setFaults([
      { match: /POISON/, times: 1, fault: { kind: 'status', status: 500, retryAfterMs: 1 } },
    ]);
    await expect(ask(client, 'POISON here.')).rejects.toBeInstanceOf(InternalServerError);
    await expect(ask(client, 'POISON here.')).resolves.toBeDefined();
    const retrying = new OpenAI({ baseURL: stub.url, apiKey: 'any', maxRetries: 2 });
    stub.setFaults([
      { times: 2, fault: { kind: 'status', status: 429, retryAfterSeconds: 0, retryAfterMs: 1 } },
    ]);
    await expect(ask(retrying)).resolves.toBeDefined();
    expect(
      stub
        .stats()
        .calls.slice(-3)
        .map((call) => call.status),
    ).toEqual([429, 429, 200]);
  });

  it('drops connections, delays, and distorts answers on request', async () => {
    stub.setFaults([{ times: 1, fault: { kind: 'reset' } }]);
    await expect(ask(client)).rejects.toBeInstanceOf(APIConnectionError);
    stub.setFaults([
      { fault: { kind: 'latency', ms: 150 } },
      { fault: { kind: 'truncate', fraction: 0.5 } },
    ]);
    const started = Date.now();
    const completion = await ask(client);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(() => {
      JSON.parse(completion.choices[0]?.message.content ?? '');
    }).toThrow();
  });

  it('records the peak of concurrent calls', async () => {
    stub.configure({ latencyMs: 60 });
    await Promise.all(Array.from({ length: 5 }, () => ask(client)));
    expect(stub.stats()).toMatchObject({ chatCompletions: 5, peakInFlight: 5, inFlight: 0 });
  });

  it('is scripted over its control API too', async () => {
    const put = (path: string, body: unknown) =>
      fetch(`${stub.url.replace(/\/v1$/, '')}${path}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect(
      (await put('/_stub/faults', { faults: [{ match: 'x', fault: { kind: 'bad' } }] })).status,
    ).toBe(400);
    expect(
      (await put('/_stub/faults', { faults: [{ match: 'POISON', fault: { kind: 'malformed' } }] }))
        .status,
    ).toBe(200);
    expect((await put('/_stub/options', { latencyMs: 1 })).status).toBe(200);
    const completion = await ask(client, 'POISON.');
    expect(completion.choices[0]?.message.content).not.toContain('{');
    const stats = (await (await fetch(`${stub.url.replace(/\/v1$/, '')}/_stub/stats`)).json()) as {
      chatCompletions: number;
    };
    expect(stats.chatCompletions).toBe(1);
  });

  it('requires the API key when given one', async () => {
    const locked = await startLlmStub({ apiKey: 'sk-test' });
    try {
      const wrong = new OpenAI({ baseURL: locked.url, apiKey: 'sk-wrong', maxRetries: 0 });
      await expect(ask(wrong)).rejects.toMatchObject({ status: 401 });
      const right = new OpenAI({ baseURL: locked.url, apiKey: 'sk-test', maxRetries: 0 });
      await expect(ask(right)).resolves.toBeDefined();
    } finally {
      await locked.close();
    }
  });
});

describe('the LLM stand-in process', () => {
  it('starts from the environment, prints its port, and stops on SIGTERM', async () => {
    // The built entry: `make test` builds before testing.
    const entry = join(__dirname, '..', '..', 'dist', 'main.js');
    const child = spawn(process.execPath, [entry], {
      env: {
        ...process.env,
        PORT: '0',
        LLM_STUB_MODELS: 'a,b',
        LLM_STUB_FAULTS: JSON.stringify([
          { match: 'POISON', fault: { kind: 'status', status: 503 } },
        ]),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        child.once('exit', (code) => reject(new Error(`exited ${code}`)));
        createInterface({ input: child.stdout }).once('line', resolve);
      });
      const { url } = JSON.parse(line) as { url: string };
      const models = (await (await fetch(`${url}/models`)).json()) as {
        data: Array<{ id: string }>;
      };
      expect(models.data.map((model) => model.id)).toEqual(['a', 'b']);
      const client = new OpenAI({ baseURL: url, apiKey: 'x', maxRetries: 0 });
      await expect(
        client.chat.completions.create({
          model: 'b',
          messages: [{ role: 'user', content: 'POISON' }],
        }),
      ).rejects.toMatchObject({ status: 503 });
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });
});
