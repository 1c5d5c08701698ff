/**
 * System prompts and model management: defaults, who may change them, secrets never returned
 * nor stored in clear, a model server checked through the SSRF guard, and both used by chat.
 */
import pg from 'pg';
import OpenAI from 'openai';
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { readEvents } from './support/event-stream';
import { expectJson, startCoreStack, type CoreStack, type TestUser } from './support/core-stack';

interface Prompt {
  id: string;
  type: string;
  is_default: boolean;
}
interface Model {
  id: string;
  model: string;
  is_default: boolean;
  has_api_key: boolean;
}

describe('system prompts and models', () => {
  let stub: LlmStub;
  let stack: CoreStack;
  let owner: TestUser;
  let viewer: TestUser;
  let workspaceId: string;

  beforeAll(async () => {
    stub = await startLlmStub({ latencyMs: 0, models: ['pelita-stub', 'second-model'] });
    stack = await startCoreStack({
      BASE_URL_LOCAL: stub.url,
      MODEL_LOCAL: 'pelita-stub',
      // The stand-in listens on loopback.
      ALLOWED_TARGETS: '127.0.0.1',
    });
    owner = await stack.admin();
    viewer = await stack.user('viewer');
    workspaceId = (
      await expectJson<{ id: string }>(
        stack.call('POST', '/api/workspaces', owner.token, { name: 'Config' }),
        201,
      )
    ).id;
    await expectJson(
      stack.call('PUT', `/api/workspaces/${workspaceId}/users/${viewer.id}`, owner.token, {
        role: 'viewer',
      }),
      200,
    );
  });
  afterAll(async () => {
    await stack?.stop();
    await stub?.close();
  });

  const call = (method: string, path: string, user: TestUser, body?: unknown) =>
    stack.call(method, `/api/workspaces/${workspaceId}${path}`, user.token, body);

  it('keeps one default prompt per type, and lets only managers change prompts', async () => {
    const first = await expectJson<Prompt>(
      call('POST', '/system-prompts', owner, {
        name: 'Tone',
        type: 'persistent',
        content: 'Always answer like a ZEBRA-ALPHA librarian.',
        is_default: true,
      }),
      201,
    );
    const second = await expectJson<Prompt>(
      call('POST', '/system-prompts', owner, {
        name: 'Tone 2',
        type: 'persistent',
        content: 'Always answer like a ZEBRA-BRAVO librarian.',
        is_default: true,
      }),
      201,
    );
    const listed = await expectJson<{ data: Prompt[] }>(
      call('GET', '/system-prompts?type=persistent', viewer),
      200,
    );
    expect(listed.data.filter((p) => p.is_default).map((p) => p.id)).toEqual([second.id]);
    await expectJson(
      call('POST', '/system-prompts', viewer, { name: 'x', type: 'report', content: 'y' }),
      403,
    );
    await expectJson(call('PATCH', `/system-prompts/${first.id}`, viewer, { content: 'z' }), 403);
    await expectJson(
      call('POST', '/system-prompts', owner, { name: 'Tone', type: 'custom', content: 'dup' }),
      409,
    );
    await expectJson(
      call('POST', '/system-prompts', owner, { name: 'Bad', type: 'other', content: 'x' }),
      400,
    );
  });

  it('puts the default persistent prompt before every chat', async () => {
    const room = await expectJson<{ id: string }>(call('POST', '/rooms', owner, {}), 201);
    stub.resetStats();
    await readEvents(
      await call('POST', `/rooms/${room.id}/messages`, owner, { chat: 'Hello there.' }),
    );
    expect(JSON.stringify(stub.stats().calls.at(-1))).toContain('ZEBRA-BRAVO');
  });

  it('keeps model keys sealed: never returned, never stored in clear', async () => {
    const created = await expectJson<Model & Record<string, unknown>>(
      call('POST', '/models', owner, {
        name: 'Stand-in',
        model: 'pelita-stub',
        base_url: stub.url,
        api_key: 'sk-very-secret-key-123',
      }),
      201,
    );
    expect(created).toMatchObject({ is_default: true, has_api_key: true });
    expect(JSON.stringify(created)).not.toContain('sk-very-secret');
    const client = new pg.Client({ connectionString: stack.platform.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ row: string }>(
        'select row_to_json(m)::text as row from core_backend.workspace_models m where id = $1',
        [created.id],
      );
      expect(rows[0]!.row).not.toContain('sk-very-secret');
    } finally {
      await client.end();
    }
  });

  it('refuses a model key that could never travel in a header (found by schemathesis)', async () => {
    const refused = await call('POST', '/models', owner, {
      name: 'Unsendable',
      model: 'pelita-stub',
      api_key: 'sk-clé-secrète',
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('api_key');
  });

  it('checks a model on its server, and refuses a server at a private address', async () => {
    const models = await expectJson<{ data: Model[] }>(call('GET', '/models', owner), 200);
    const standIn = models.data.find((m) => m.model === 'pelita-stub')!;
    const check = await expectJson<{ available: boolean; server_models: string[] }>(
      call('POST', `/models/${standIn.id}/check`, owner),
      200,
    );
    expect(check).toEqual({ available: true, server_models: ['pelita-stub', 'second-model'] });

    const inside = await expectJson<Model>(
      call('POST', '/models', owner, {
        name: 'Inside',
        model: 'x',
        base_url: 'http://10.0.0.1/v1',
      }),
      201,
    );
    const refused = await expectJson<{ error: { code: string } }>(
      call('POST', `/models/${inside.id}/check`, owner),
      403,
    );
    expect(refused.error.code).toBe('target_forbidden');
    await expectJson(call('DELETE', `/models/${inside.id}`, owner), 200);
  });

  it('moves the default, hands it on when the default goes, and offers the models on the open API', async () => {
    const second = await expectJson<Model>(
      call('POST', '/models', owner, { name: 'Second', model: 'second-model', base_url: stub.url }),
      201,
    );
    expect(second.is_default).toBe(false);
    await expectJson(call('PATCH', `/models/${second.id}`, owner, { is_default: true }), 200);
    const list = await expectJson<{ data: Model[] }>(call('GET', '/models', owner), 200);
    expect(list.data.filter((m) => m.is_default).map((m) => m.id)).toEqual([second.id]);

    const key = (
      await expectJson<{ key: string }>(call('POST', '/app-keys', owner, { name: 'k' }), 201)
    ).key;
    const sdk = new OpenAI({ baseURL: `${stack.url}/open-api`, apiKey: key, maxRetries: 0 });
    expect((await sdk.models.list()).data.map((m) => m.id)).toEqual([
      'second-model',
      'pelita-stub',
    ]);

    // A room without a model answers with the default.
    const room = await expectJson<{ id: string }>(call('POST', '/rooms', owner, {}), 201);
    const events = await readEvents(
      await call('POST', `/rooms/${room.id}/messages`, owner, { chat: 'Which model?' }),
    );
    expect((events.at(-1)!.data as { llm: string }).llm).toBe('second-model');

    await expectJson(call('DELETE', `/models/${second.id}`, owner), 200);
    const after = await expectJson<{ data: Model[] }>(call('GET', '/models', owner), 200);
    expect(after.data.filter((m) => m.is_default).map((m) => m.model)).toEqual(['pelita-stub']);
  });
});
