/**
 * The embedded widget's API and the chat page's sign-in relay, against the real platform:
 * a widget answers visitors with its workspace's knowledge through its app key (which never
 * reaches the browser), keeps each visitor's conversation apart from every other and from the
 * open API's sessions, refuses once its key is revoked or it is disabled, limits questions per
 * address, and its page may be framed only by its allowed origins.
 */
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import {
  ADMIN,
  expectJson,
  startCoreStack,
  type CoreStack,
  type TestUser,
} from './support/core-stack';
import { readEvents } from './support/event-stream';

interface Record {
  id: string;
  session_id: string;
  chat: string;
  response: string;
  status: string;
}

describe('the embedded chat widget', () => {
  let stub: LlmStub;
  let stack: CoreStack;
  let owner: TestUser;
  let workspaceId: string;
  let appKey: { id: string; key: string };
  const ORIGIN = 'https://intranet.example.com';

  const call = (method: string, path: string, body?: unknown) =>
    stack.call(method, `/api/workspaces/${workspaceId}${path}`, owner.token, body);
  const ask = (iframeId: string, chat: string, session?: string) =>
    fetch(`${stack.url}/embed/${iframeId}/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(session ? { 'x-session-id': session } : {}),
      },
      body: JSON.stringify({ chat }),
    });
  const history = (iframeId: string, session: string) =>
    fetch(`${stack.url}/embed/${iframeId}/messages`, { headers: { 'x-session-id': session } });
  const newIframe = async (extra: object = {}) =>
    expectJson<{ id: string }>(
      call('POST', '/iframes', {
        name: `w-${Math.random().toString(36).slice(2, 8)}`,
        allowed_origins: [ORIGIN, 'http://127.0.0.1:8080'],
        app_key_id: appKey.id,
        ...extra,
      }),
      201,
    );

  beforeAll(async () => {
    stub = await startLlmStub();
    stack = await startCoreStack({
      BASE_URL_LOCAL: stub.url,
      MODEL_LOCAL: 'pelita-stub',
      EMBED_RATE_LIMIT: '4',
      EMBED_RATE_WINDOW_SECONDS: '60',
    });
    owner = await stack.admin();
    workspaceId = (
      await expectJson<{ id: string }>(
        stack.call('POST', '/api/workspaces', owner.token, { name: 'Widget' }),
        201,
      )
    ).id;
    appKey = await expectJson(call('POST', '/app-keys', { name: 'widget' }), 201);
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    await stub?.close();
  });

  it('serves its page only to frames of its allowed origins, with the key kept out of it', async () => {
    const iframe = await newIframe({ theme: { title: 'Desk "help" <b>' } });
    const page = await fetch(`${stack.url}/embed/${iframe.id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const policy = page.headers.get('content-security-policy')!;
    expect(policy).toContain(`frame-ancestors ${ORIGIN} http://127.0.0.1:8080`);
    expect(policy).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).not.toContain(appKey.key);
    expect(html).not.toContain(appKey.key.split('_')[1]);
    // The title is data in an attribute: quoted, never markup.
    expect(html).toContain('Desk \\&quot;help\\&quot; &lt;b&gt;');
    expect(html).not.toContain('<b>');

    const root = await fetch(`${stack.url}/`, { redirect: 'manual' });
    expect([root.status, root.headers.get('location')]).toEqual([302, '/chat']);
    const chat = await fetch(`${stack.url}/chat`);
    expect(chat.status).toBe(200);
    expect(chat.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const script = await fetch(`${stack.url}/assets/widget.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect((await fetch(`${stack.url}/assets/../src/config.ts`)).status).toBe(404);
  });

  it("answers a visitor from the key's workspace and keeps each conversation apart", async () => {
    const iframe = await newIframe();
    const first = await ask(iframe.id, 'What is a lantern?');
    expect(first.status).toBe(200);
    const session = first.headers.get('x-session-id')!;
    expect(session).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const events = await readEvents(first);
    expect(events.map((e) => e.event)).toEqual(
      expect.arrayContaining(['sources', 'token', 'done']),
    );
    const done = events.at(-1)!.data as Record;
    expect(done).toMatchObject({ chat: 'What is a lantern?', status: 'complete' });
    expect(done.session_id).toBe(`embed:${iframe.id}:${session}`);

    await readEvents(await ask(iframe.id, 'And a lamp?', session));
    const mine = await expectJson<{ data: Record[]; total: number }>(
      history(iframe.id, session),
      200,
    );
    expect(mine.total).toBe(2);
    expect(mine.data.map((r) => r.chat)).toEqual(['And a lamp?', 'What is a lantern?']);

    // Another visitor sees nothing of it, nor does the same session id through another widget.
    const other = await expectJson<{ data: Record[] }>(
      history(iframe.id, 'another-visitor-session-0001'),
      200,
    );
    expect(other.data).toEqual([]);
    const sibling = await newIframe();
    expect((await expectJson<{ data: Record[] }>(history(sibling.id, session), 200)).data).toEqual(
      [],
    );

    // The workspace's programs export widget conversations through the history open API.
    const exported = await expectJson<{ data: { total: number } }>(
      fetch(`${stack.url}/v1/api/open-api/workspaces/${workspaceId}/history`, {
        headers: {
          authorization: `Bearer ${appKey.key}`,
          'x-session-id': `embed:${iframe.id}:${session}`,
        },
      }),
      200,
    );
    expect(exported.data.total).toBe(2);
  });

  it('never reaches a session a program opened through the open API', async () => {
    const iframe = await newIframe();
    const programSession = 'crm-session-000000000000001';
    const completion = await fetch(`${stack.url}/open-api/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${appKey.key}`,
        'content-type': 'application/json',
        'x-session-id': programSession,
      },
      body: JSON.stringify({
        model: 'pelita-stub',
        messages: [{ role: 'user', content: 'secret plan' }],
      }),
    });
    expect(completion.status).toBe(200);
    const seen = await expectJson<{ data: Record[] }>(history(iframe.id, programSession), 200);
    expect(seen.data).toEqual([]);
  });

  it('refuses a malformed session id, a disabled widget and one whose key is revoked', async () => {
    const iframe = await newIframe();
    expect((await history(iframe.id, 'short')).status).toBe(400);
    expect((await ask(iframe.id, 'hi', 'has spaces in it, not an id at all')).status).toBe(400);
    expect((await ask(iframe.id, '   ')).status).toBe(400);

    await expectJson(call('PATCH', `/iframes/${iframe.id}`, { enabled: false }), 200);
    expect((await ask(iframe.id, 'hello')).status).toBe(404);
    expect((await fetch(`${stack.url}/embed/${iframe.id}`)).status).toBe(404);
    await expectJson(call('PATCH', `/iframes/${iframe.id}`, { enabled: true }), 200);
    expect((await fetch(`${stack.url}/embed/${iframe.id}`)).status).toBe(200);

    const key = await expectJson<{ id: string }>(
      call('POST', '/app-keys', { name: 'short-lived' }),
      201,
    );
    const revocable = await newIframe({ app_key_id: key.id });
    expect((await fetch(`${stack.url}/embed/${revocable.id}`)).status).toBe(200);
    await expectJson(call('DELETE', `/app-keys/${key.id}`), 200);
    const gone = await fetch(`${stack.url}/embed/${revocable.id}`);
    expect(gone.status).toBe(404);
    expect(await gone.text()).toContain('not available');
    expect((await ask(revocable.id, 'hello')).status).toBe(404);
    expect(
      (
        await fetch(`${stack.url}/embed/00000000-0000-4000-8000-000000000000/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ chat: 'hello' }),
        })
      ).status,
    ).toBe(404);
  });

  it('limits the questions one address may ask a widget (429 with Retry-After)', async () => {
    const iframe = await newIframe();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const answer = await ask(iframe.id, `question ${i}`);
      statuses.push(answer.status);
      if (answer.status === 200) await readEvents(answer);
      else {
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(await answer.json()).toMatchObject({ error: { code: 'too_many_questions' } });
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    // The limit is per widget: another one still answers.
    const other = await newIframe();
    const answer = await ask(other.id, 'question');
    expect(answer.status).toBe(200);
    await readEvents(answer);
  });
});

describe("the chat page's sign-in relay", () => {
  let stack: CoreStack;
  beforeAll(async () => {
    stack = await startCoreStack();
  }, 60_000);
  afterAll(() => stack?.stop());

  it('passes login, refresh and logout to the user service and back unchanged', async () => {
    const wrong = await stack.call('POST', '/auth/login', undefined, {
      email: ADMIN.email,
      password: 'not-the-password',
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: { code: expect.any(String) } });

    const tokens = await expectJson<{ access_token: string; refresh_token: string }>(
      stack.call('POST', '/auth/login', undefined, {
        email: ADMIN.email,
        password: ADMIN.password,
      }),
      200,
    );
    // The token works on the core backend's API.
    await expectJson(stack.call('GET', '/api/workspaces', tokens.access_token), 200);

    const fresh = await expectJson<{ access_token: string }>(
      stack.call('POST', '/auth/refresh', undefined, { refresh_token: tokens.refresh_token }),
      200,
    );
    // A replayed refresh token ends the session (the user service's rule, seen through the relay).
    expect(
      (
        await stack.call('POST', '/auth/refresh', undefined, {
          refresh_token: tokens.refresh_token,
        })
      ).status,
    ).toBe(401);

    const again = await expectJson<{ access_token: string }>(
      stack.call('POST', '/auth/login', undefined, {
        email: ADMIN.email,
        password: ADMIN.password,
      }),
      200,
    );
    const out = await stack.call('POST', '/auth/logout', again.access_token);
    expect(out.status).toBe(204);
    expect((await stack.call('GET', '/api/workspaces', again.access_token)).status).toBe(401);
    expect(fresh.access_token).not.toBe(again.access_token);
  });

  it('answers 400 for a malformed body and 503 when no user service is configured', async () => {
    expect((await stack.call('POST', '/auth/login', undefined, { email: 'x' })).status).toBe(400);
    const alone = await startCoreStack({ URL_USER: '' });
    try {
      const answer = await alone.call('POST', '/auth/login', undefined, {
        email: 'a@b.c',
        password: 'x',
      });
      expect(answer.status).toBe(503);
      expect(await answer.json()).toMatchObject({ error: { code: 'sign_in_unavailable' } });
    } finally {
      await alone.stop();
    }
  });
});
