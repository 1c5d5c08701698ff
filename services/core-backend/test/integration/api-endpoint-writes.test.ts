/**
 * Text-to-API reads unless told otherwise: an endpoint whose method may change data (anything
 * but GET) is called — tried, or chosen by the model in a chat — only when its API's editors
 * allowed it (`allow_write`), and never for a member without knowledge.write. Through the real
 * http-proxy to a local upstream that records what reached it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningServer } from '@pelita/kit';
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { readEvents } from './support/event-stream';
import { HTTP_PROXY_TOKEN, startHttpProxy } from './support/proxies';
import { expectJson, startCoreStack, type CoreStack, type TestUser } from './support/core-stack';

describe('API endpoints that may change data', () => {
  let stack: CoreStack;
  let httpProxy: RunningServer;
  let stub: LlmStub;
  let upstream: Server;
  const reached: string[] = [];
  let owner: TestUser;
  let viewer: TestUser;
  let workspaceId: string;
  let apiId: string;
  const ids: Record<'list' | 'remove' | 'refund', string> = { list: '', remove: '', refund: '' };

  beforeAll(async () => {
    httpProxy = await startHttpProxy();
    upstream = createServer((req, res) => {
      reached.push(`${req.method} ${req.url}`);
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    stub = await startLlmStub({ latencyMs: 0 });
    stack = await startCoreStack({
      BASE_URL_LOCAL: stub.url,
      MODEL_LOCAL: 'pelita-stub',
      URL_HTTP_PROXY: httpProxy.url,
      HTTP_PROXY_TOKEN,
    });
    owner = await stack.admin();
    viewer = await stack.user('viewer');
    workspaceId = (
      await expectJson<{ id: string }>(
        stack.call('POST', '/api/workspaces', owner.token, { name: 'Writes' }),
        201,
      )
    ).id;
    await expectJson(
      stack.call('PUT', `/api/workspaces/${workspaceId}/users/${viewer.id}`, owner.token, {
        role: 'viewer',
      }),
      200,
    );
    const port = (upstream.address() as AddressInfo).port;
    apiId = (
      await expectJson<{ id: string }>(
        call('POST', '/apis', owner, { name: 'Shop', base_url: `http://127.0.0.1:${port}` }),
        201,
      )
    ).id;
    await expectJson(
      call('PUT', `/apis/${apiId}/access`, owner, { user_ids: [owner.id, viewer.id] }),
      200,
    );
    const endpoint = async (body: Record<string, unknown>) =>
      (await expectJson<{ id: string }>(call('POST', `/apis/${apiId}/endpoints`, owner, body), 201))
        .id;
    ids.list = await endpoint({ name: 'list', method: 'get', path: '/orders' });
    ids.remove = await endpoint({
      name: 'remove',
      description: 'delete all the orders',
      method: 'delete',
      path: '/orders',
    });
    ids.refund = await endpoint({
      name: 'refund',
      method: 'post',
      path: '/refunds',
      allow_write: true,
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await httpProxy?.stop();
    await stub?.close();
    upstream?.close();
  });

  function call(method: string, path: string, user: TestUser, body?: unknown) {
    return stack.call(method, `/api/workspaces/${workspaceId}${path}`, user.token, body);
  }
  const tryIt = (user: TestUser, id: string) =>
    call('POST', `/apis/${apiId}/endpoints/${id}/try`, user, {});
  const forbidden = async (res: Promise<Response>) =>
    expect((await expectJson<{ error: { code: string } }>(res, 403)).error.code).toBe(
      'endpoint_write_forbidden',
    );

  it('tries a GET for any member who sees the API', async () => {
    reached.length = 0;
    await expectJson(tryIt(viewer, ids.list), 200);
    expect(reached).toEqual(['GET /orders']);
  });

  it('calls another method only when allowed, and only for a member who may write', async () => {
    reached.length = 0;
    await forbidden(tryIt(owner, ids.remove));
    await forbidden(tryIt(viewer, ids.remove));
    await forbidden(tryIt(viewer, ids.refund));
    expect(reached).toEqual([]);
    await expectJson(tryIt(owner, ids.refund), 200);
    expect(reached).toEqual(['POST /refunds']);

    // Allowing is the API editors' change; a PATCH that leaves it out keeps it.
    const patched = await expectJson<{ allow_write: boolean }>(
      call('PATCH', `/apis/${apiId}/endpoints/${ids.refund}`, owner, { name: 'refund2' }),
      200,
    );
    expect(patched.allow_write).toBe(true);
  });

  it("never offers the model an endpoint the chat's member may not have called", async () => {
    reached.length = 0;
    const room = await expectJson<{ id: string }>(
      call('POST', '/rooms', viewer, { knowledge_sources: [{ type: 'api', topic_id: [apiId] }] }),
      201,
    );
    stub.resetStats();
    const events = await readEvents(
      await call('POST', `/rooms/${room.id}/messages`, viewer, {
        chat: 'Please delete all the orders.',
      }),
    );
    expect(events.at(-1)!.event).toBe('done');
    const planning = stub.stats().calls.find((c) => c.prompt.includes('<endpoints>'))!;
    expect(planning.prompt).toContain('GET /orders');
    expect(planning.prompt).not.toContain('DELETE /orders');
    expect(planning.prompt).not.toContain('POST /refunds');
    expect(reached).toEqual(['GET /orders']);
  });
});
