/**
 * What OPA 1.x really does with the seed's push, `PUT /v1/data` with
 * `Content-Type: application/json-patch+json`: the content type is ignored by PUT, and the JSON
 * body replaces the whole `data` document. (Only PATCH reads a JSON Patch array.)
 */
import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOpaClient, PUSH_CONTENT_TYPE, revisionOf } from '../../src/sync/opa-client';
import { POLICIES_DIR, startOpa, type OpaProcess } from '@pelita/testenv';

// Starting OPA can take more than jest's default 5 s on a busy machine.
jest.setTimeout(60_000);

describe("OPA's data API with the seed's content type", () => {
  let opa: OpaProcess;
  beforeAll(async () => {
    opa = await startOpa([POLICIES_DIR]);
  });
  afterAll(() => opa.stop());

  const put = (body: string, contentType = PUSH_CONTENT_TYPE) =>
    fetch(`${opa.url}/v1/data`, { method: 'PUT', headers: { 'content-type': contentType }, body });

  it('replaces the whole document with the body of a PUT, whatever the content type says', async () => {
    expect((await put(JSON.stringify({ user_roles: { a: ['r'] }, stale: true }))).status).toBe(204);
    const res = await put(JSON.stringify({ user_roles: { b: ['r'] }, role_grants: {} }));
    expect(res.status).toBe(204);
    expect(await opa.data()).toEqual({ user_roles: { b: ['r'] }, role_grants: {} });
  });

  it('does not read a JSON Patch from a PUT: an array is refused as the new root', async () => {
    const patch = JSON.stringify([{ op: 'add', path: '/x', value: 1 }]);
    const res = await put(patch);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('root must be object');
  });

  it('pushes through the client: document first, then the revision marker', async () => {
    const client = createOpaClient({ baseUrl: opa.url, timeoutMs: 2000 });
    const text = JSON.stringify({ user_roles: { c: ['r'] }, role_grants: { r: [] } });
    await client.pushDocument(text);
    expect(await opa.data()).toEqual({
      user_roles: { c: ['r'] },
      role_grants: { r: [] },
      pelita_policy_sync: { revision: revisionOf(text) },
    });
    expect(await client.readRevision()).toBe(revisionOf(text));
    // Anyone replacing `data` removes the marker: that is how a lost document is noticed.
    await put(JSON.stringify({}));
    expect(await client.readRevision()).toBeUndefined();
  });

  it("sends the seed's content type on the push, as recorded between the client and OPA", async () => {
    const recorder = await startRecordingProxy(opa.url);
    try {
      const client = createOpaClient({ baseUrl: recorder.url, timeoutMs: 2000 });
      const text = JSON.stringify({ user_roles: { d: ['r'] }, role_grants: {} });
      await client.pushDocument(text);
      expect(recorder.requests).toEqual([
        {
          method: 'PUT',
          path: '/v1/data',
          contentType: 'application/json-patch+json',
          authorization: undefined,
          body: text,
        },
        {
          method: 'PUT',
          path: '/v1/data/pelita_policy_sync',
          contentType: 'application/json',
          authorization: undefined,
          body: JSON.stringify({ revision: revisionOf(text) }),
        },
      ]);
      expect(await opa.data()).toMatchObject({ user_roles: { d: ['r'] } });
    } finally {
      await recorder.close();
    }
  });

  it('sends OPA_TOKEN as a bearer token on every call when it is set', async () => {
    const recorder = await startRecordingProxy(opa.url);
    try {
      const client = createOpaClient({ baseUrl: recorder.url, timeoutMs: 2000, token: 'opa-t' });
      await client.pushDocument(JSON.stringify({ user_roles: {}, role_grants: {} }));
      await client.readRevision();
      await client.checkHealth();
      expect(recorder.requests.map((r) => `${r.method} ${r.path} ${r.authorization}`)).toEqual([
        'PUT /v1/data Bearer opa-t',
        'PUT /v1/data/pelita_policy_sync Bearer opa-t',
        'GET /v1/data/pelita_policy_sync/revision Bearer opa-t',
        'GET /health Bearer opa-t',
      ]);
    } finally {
      await recorder.close();
    }
  });
});

interface RecordedRequest {
  method: string | undefined;
  path: string | undefined;
  contentType: string | undefined;
  authorization: string | undefined;
  body: string;
}

/** Forwards every request to `target` unchanged and records what the client really sent. */
async function startRecordingProxy(target: string) {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({
        method: req.method,
        path: req.url,
        contentType: req.headers['content-type'],
        authorization: req.headers.authorization,
        body: body.toString('utf8'),
      });
      const forwarded = request(
        new URL(req.url ?? '/', target),
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forwarded.on('error', () => res.writeHead(502).end());
      forwarded.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
