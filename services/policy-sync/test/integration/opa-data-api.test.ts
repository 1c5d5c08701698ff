/**
 * What OPA 1.x really does with the seed's push, `PUT /v1/data` with
 * `Content-Type: application/json-patch+json`: the content type is ignored by PUT, and the JSON
 * body replaces the whole `data` document. (Only PATCH reads a JSON Patch array.)
 */
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
});
