/**
 * The summarizer client against a loopback server speaking the summarizer's `/summarize`: the
 * form it sends, retries of 503, a 4xx given up at once, the read time-out, and no listener left
 * behind on a kept-alive socket (one per request used to pile up: a leak a long-running worker
 * would feel).
 */
import { createServer, globalAgent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSummarizerClient, SummarizerError } from '../../src/summarizer-client';

const RESULT = {
  total_initial_chunks: 1,
  summarize_chunk: [],
  final_summary: {
    summary: 'short',
    key_points_model: [],
    topics_aggregated: [],
    named_entities: {},
  },
  final_summary_tokens: 1,
};

describe('summarizer client', () => {
  let server: Server;
  let baseUrl: string;
  const answers: number[] = [];
  const forms: FormData[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        void new Request('http://x', {
          method: 'POST',
          headers: { 'content-type': req.headers['content-type'] ?? '' },
          body: Buffer.concat(chunks),
        })
          .formData()
          .then((form) => {
            forms.push(form);
            const status = answers.shift() ?? 200;
            if (status === 0) return; // never answers
            res.writeHead(status, { 'content-type': 'application/json' });
            res.end(JSON.stringify(status === 200 ? RESULT : { detail: 'no' }));
          });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const client = (readTimeoutMs = 5000) =>
    createSummarizerClient({
      baseUrl,
      connectTimeoutMs: 1000,
      readTimeoutMs,
      retries: 2,
      backoffMs: 10,
      chunkSize: 1000,
      targetContext: 128000,
      enableNer: true,
    });

  it('sends the text as a file with the settings, and retries a 503', async () => {
    forms.length = 0;
    answers.push(503);
    const result = await client().summarize({ name: 'meeting.txt', text: 'SPEAKER_00: hello' });
    expect(result.final_summary.summary).toBe('short');
    expect(forms).toHaveLength(2);
    const file = forms[1]!.get('file') as File;
    expect(file.name).toBe('meeting.txt');
    expect(await file.text()).toBe('SPEAKER_00: hello');
    expect([
      forms[1]!.get('chunk_size'),
      forms[1]!.get('target_context'),
      forms[1]!.get('enable_ner'),
    ]).toEqual(['1000', '128000', 'true']);
  });

  it('gives up on a 4xx at once, with its status', async () => {
    forms.length = 0;
    answers.push(422);
    await expect(client().summarize({ name: 'a.txt', text: 'x' })).rejects.toMatchObject({
      name: 'SummarizerError',
      status: 422,
    });
    expect(forms).toHaveLength(1);
  });

  it('stops waiting after the read time-out', async () => {
    answers.push(0);
    await expect(client(200).summarize({ name: 'a.txt', text: 'x' })).rejects.toThrow(
      SummarizerError,
    );
  });

  it('leaves no time-out listener on a kept-alive socket', async () => {
    const summarizer = client();
    for (let i = 0; i < 15; i += 1) await summarizer.summarize({ name: 'a.txt', text: 'x' });
    const free = Object.values(globalAgent.freeSockets).flat();
    expect(free.length).toBeGreaterThan(0);
    for (const socket of free) expect(socket!.listenerCount('timeout')).toBeLessThanOrEqual(1);
  });
});
