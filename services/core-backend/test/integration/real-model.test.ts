/**
 * The platform's main job with a real model: a PDF uploaded through the core backend and
 * processed by the real OCR chain, then a question in a room answered by SmolLM2-135M-Instruct
 * on node-llama-cpp (`tools/local-model`, from the cache `make local-model` fills), streamed over
 * SSE and stored. What the model says is not asserted (a 135M model answers as it will); that
 * it streams real tokens from a real model, with the document as a source, is.
 */
import { startLocalModel, type LocalModelProcess } from '@pelita/local-model';
import { textPdf } from '../../../ocr-service/test/integration/support/documents';
import { expectJson, type TestUser } from './support/core-stack';
import { startDocumentStack, type DocumentStack } from './support/document-stack';
import { readEvents } from './support/event-stream';

describe('a chat with the real local model', () => {
  let model: LocalModelProcess;
  let stack: DocumentStack;
  let owner: TestUser;
  let workspaceId: string;

  beforeAll(async () => {
    model = await startLocalModel({ LOCAL_MODEL_MAX_TOKENS: '64' });
    // Embeddings stay off: the real model's server has none (BM25 finds the document).
    stack = await startDocumentStack({
      BASE_URL_LOCAL: model.url,
      MODEL_LOCAL: model.model,
      EMBEDDINGS_MODEL: '',
    });
    owner = await stack.core.admin();
    workspaceId = (
      await expectJson<{ id: string }>(
        stack.core.call('POST', '/api/workspaces', owner.token, { name: 'Real model' }),
        201,
      )
    ).id;
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await model?.stop();
  });

  it('answers a question over an uploaded document, streamed token by token', async () => {
    const form = new FormData();
    const pdf = await textPdf(
      1,
      () => 'The harbour ferry to Pulau Seribu leaves every morning at nine.',
    );
    form.append('file', new Blob([new Uint8Array(pdf)]), 'ferry.pdf');
    const uploaded = await expectJson<{ id: string }>(
      fetch(`${stack.core.url}/api/workspaces/${workspaceId}/documents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}` },
        body: form,
      }),
      201,
    );
    const deadline = Date.now() + 120_000;
    for (;;) {
      const doc = await expectJson<{ state: string }>(
        stack.core.call(
          'GET',
          `/api/workspaces/${workspaceId}/documents/${uploaded.id}`,
          owner.token,
        ),
        200,
      );
      if (doc.state === 'done') break;
      if (doc.state === 'failed' || Date.now() > deadline) throw new Error(JSON.stringify(doc));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const room = await expectJson<{ id: string }>(
      stack.core.call('POST', `/api/workspaces/${workspaceId}/rooms`, owner.token, {
        name: 'Ferry',
      }),
      201,
    );
    const events = await readEvents(
      await stack.core.call(
        'POST',
        `/api/workspaces/${workspaceId}/rooms/${room.id}/messages`,
        owner.token,
        { chat: 'When does the harbour ferry leave?' },
      ),
    );
    const tokens = events.filter((e) => e.event === 'token');
    expect(tokens.length).toBeGreaterThan(1);
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    const record = done.data as {
      llm: string;
      response: string;
      status: string;
      knowledge_source_detail: Array<{ type: string; topic_id: string[] }>;
    };
    expect(record).toMatchObject({ llm: 'smollm2-135m-instruct', status: 'complete' });
    expect(record.response).toBe(tokens.map((e) => (e.data as { text: string }).text).join(''));
    expect(record.response.trim().length).toBeGreaterThan(0);
    expect(record.knowledge_source_detail).toEqual([{ type: 'document', topic_id: [uploaded.id] }]);
  });
});
