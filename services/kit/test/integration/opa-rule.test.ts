/**
 * The OPA transport every rule query shares (the guard's `allow`, the user service's `explain`):
 * against the real OPA of `make testenv`, and a server answering as an OPA whose API policy
 * (`system.authz`) refuses the caller.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requireEnv } from '@pelita/testenv';
import { HttpError, opaDecision, queryOpaRule } from '../../src';

const { OPA_URL } = requireEnv('OPA_URL');
const policyPackage = `kit_rule_${randomUUID().replaceAll('-', '')}`;
const POLICY = `package ${policyPackage}.authz
default allow := false
allow if input.user == "ann"
why := {"user": input.user, "paths": [input.path]} if input.method == "GET"`;
const input = { user: 'ann', method: 'GET', path: '/reports/1' };

describe('queryOpaRule', () => {
  beforeAll(async () => {
    const put = await fetch(`${OPA_URL}/v1/policies/${policyPackage}`, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: POLICY,
    });
    if (!put.ok) throw new Error(`loading the test policy failed: ${put.status}`);
  });
  afterAll(() => fetch(`${OPA_URL}/v1/policies/${policyPackage}`, { method: 'DELETE' }));

  it("resolves to the rule's result, undefined where the rule is undefined", async () => {
    const why = queryOpaRule({ url: `${OPA_URL}/`, rule: `${policyPackage}/authz/why` });
    await expect(why(input)).resolves.toEqual({ user: 'ann', paths: ['/reports/1'] });
    await expect(why({ ...input, method: 'POST' })).resolves.toBeUndefined();
    const missing = queryOpaRule({ url: OPA_URL, rule: `${policyPackage}/authz/nothing` });
    await expect(missing(input)).resolves.toBeUndefined();
  });

  it('decides through the same transport: only a true result allows', async () => {
    const allow = opaDecision({ url: OPA_URL, rule: `${policyPackage}/authz/allow` });
    await expect(allow(input)).resolves.toBe(true);
    await expect(allow({ ...input, user: 'bob' })).resolves.toBe(false);
    const undefinedRule = opaDecision({ url: OPA_URL, rule: `${policyPackage}/authz/why` });
    await expect(undefinedRule(input)).resolves.toBe(false);
  });

  it("fails closed with 503, and answers the caller's own error where OPA refuses it", async () => {
    let status = 403;
    const server = createServer((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end('{}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const plain = queryOpaRule({ url, rule: 'x/allow' });
      const told = queryOpaRule({
        url,
        rule: 'x/explain',
        refused: () => new HttpError(503, 'explanation_unavailable', 'not opened'),
      });
      await expect(plain(input)).rejects.toMatchObject({
        status: 503,
        code: 'authorization_unavailable',
      });
      await expect(told(input)).rejects.toMatchObject({ code: 'explanation_unavailable' });
      status = 401;
      await expect(told(input)).rejects.toMatchObject({ code: 'explanation_unavailable' });
      status = 500;
      await expect(told(input)).rejects.toMatchObject({ code: 'authorization_unavailable' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const gone = queryOpaRule({ url, rule: 'x/allow', timeoutMs: 500 });
    await expect(gone(input)).rejects.toMatchObject({
      status: 503,
      code: 'authorization_unavailable',
    });
  });
});
