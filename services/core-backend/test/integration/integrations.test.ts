/**
 * Workspace integrations and iframes: a WhatsApp Cloud API number checked through a bridge that
 * speaks the Graph API (a double on loopback: the real one is outside the platform), its token
 * sealed and never returned, the bridge's failures mapped to 502/503/504 and recorded; the chat
 * widget's configuration answered to its allowed origins only, with a live app key of its own
 * workspace.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { expectJson, startCoreStack, type CoreStack, type TestUser } from './support/core-stack';

const TOKEN = 'EAAG-good-access-token-1234';

interface Integration {
  id: string;
  check_ok: boolean | null;
  check_error: string | null;
  checked_at: string | null;
  display_phone_number: string | null;
  verified_name: string | null;
}
interface Iframe {
  id: string;
  app_key_active: boolean;
  theme: Record<string, unknown>;
}

/** The Graph API's phone-number lookup, as Meta answers it. */
function startGraphDouble(): Promise<{ server: Server; url: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://graph');
    seen.push(`${req.method} ${url.pathname} ${req.headers.authorization ?? ''}`);
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const match = /^\/v21\.0\/([^/]+)$/.exec(url.pathname);
    if (req.method !== 'GET' || !match) return reply(404, { error: { message: 'Unknown path' } });
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      return reply(401, {
        error: { message: 'Invalid OAuth access token.', type: 'OAuthException', code: 190 },
      });
    }
    if (match[1] === 'slow') return void setTimeout(() => reply(200, {}), 3000);
    return reply(200, {
      display_phone_number: '+62 811-0000-111',
      verified_name: 'Pelita Desk',
      id: match[1],
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v21.0`,
        seen,
      }),
    ),
  );
}

describe('workspace integrations and iframes', () => {
  let graph: Awaited<ReturnType<typeof startGraphDouble>>;
  let stack: CoreStack;
  let owner: TestUser;
  let editor: TestUser;
  let workspaceId: string;
  let otherWorkspaceId: string;

  beforeAll(async () => {
    graph = await startGraphDouble();
    stack = await startCoreStack({ ALLOWED_TARGETS: '127.0.0.1', WHATSAPP_TIMEOUT: '1000' });
    owner = await stack.admin();
    editor = await stack.user('editor');
    const make = async (name: string) =>
      (
        await expectJson<{ id: string }>(
          stack.call('POST', '/api/workspaces', owner.token, { name }),
          201,
        )
      ).id;
    workspaceId = await make('Desk');
    otherWorkspaceId = await make('Other desk');
    await expectJson(
      stack.call('PUT', `/api/workspaces/${workspaceId}/users/${editor.id}`, owner.token, {
        role: 'editor',
      }),
      200,
    );
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    graph?.server.close();
  });

  const call = (method: string, path: string, user: TestUser, body?: unknown) =>
    stack.call(method, `/api/workspaces/${workspaceId}${path}`, user.token, body);

  let integration: Integration;

  it('connects a number with its token sealed, and checks it through the bridge', async () => {
    const res = await call('POST', '/integrations', owner, {
      name: 'Support line',
      base_url: `${graph.url}/`,
      phone_number_id: '1098765',
      access_token: TOKEN,
    });
    const text = await res.text();
    expect(res.status).toBe(201);
    expect(text).not.toContain(TOKEN);
    integration = JSON.parse(text) as Integration;
    expect(integration).toMatchObject({ check_ok: null, checked_at: null });

    const client = new pg.Client({ connectionString: stack.platform.databaseUrl });
    await client.connect();
    const { rows } = await client.query<{ row: string }>(
      'select row_to_json(t)::text as row from core_backend.workspace_integrations t where id = $1',
      [integration.id],
    );
    await client.end();
    expect(rows[0]!.row).not.toContain(TOKEN);

    const checked = await expectJson<Integration>(
      call('POST', `/integrations/${integration.id}/check`, owner),
      200,
    );
    expect(checked).toMatchObject({
      check_ok: true,
      check_error: null,
      display_phone_number: '+62 811-0000-111',
      verified_name: 'Pelita Desk',
    });
    expect(graph.seen.at(-1)).toBe(`GET /v21.0/1098765 Bearer ${TOKEN}`);
  });

  it("maps the bridge's refusal to 502 and its silence to 504, and records them", async () => {
    const changed = await expectJson<Integration>(
      call('PATCH', `/integrations/${integration.id}`, owner, { access_token: 'EAAG-revoked' }),
      200,
    );
    expect(changed).toMatchObject({ check_ok: null, display_phone_number: null });
    const refused = await expectJson<{ error: { code: string; message: string } }>(
      call('POST', `/integrations/${integration.id}/check`, owner),
      502,
    );
    expect(refused.error).toMatchObject({ code: 'bridge_error' });
    expect(refused.error.message).toContain('Invalid OAuth access token');
    expect(
      await expectJson<Integration>(call('GET', `/integrations/${integration.id}`, owner), 200),
    ).toMatchObject({ check_ok: false, check_error: expect.stringContaining('401') });

    await expectJson(
      call('PATCH', `/integrations/${integration.id}`, owner, {
        access_token: TOKEN,
        phone_number_id: 'slow',
      }),
      200,
    );
    const slow = await expectJson<{ error: { code: string } }>(
      call('POST', `/integrations/${integration.id}/check`, owner),
      504,
    );
    expect(slow.error.code).toBe('bridge_timeout');
  });

  it('keeps what a PATCH leaves out: a disabled integration stays disabled when renamed', async () => {
    await expectJson(
      call('PATCH', `/integrations/${integration.id}`, owner, { enabled: false }),
      200,
    );
    const renamed = await expectJson<Integration & { enabled: boolean; name: string }>(
      call('PATCH', `/integrations/${integration.id}`, owner, { name: 'Desk (paused)' }),
      200,
    );
    expect(renamed).toMatchObject({ name: 'Desk (paused)', enabled: false });
    await expectJson(
      call('PATCH', `/integrations/${integration.id}`, owner, { enabled: true }),
      200,
    );
  });

  it('refuses a bridge at a private address unless ALLOWED_TARGETS lists it', async () => {
    const privateBridge = await expectJson<Integration>(
      call('POST', '/integrations', owner, {
        name: 'Internal bridge',
        base_url: 'http://10.20.30.40/v21.0',
        phone_number_id: '1',
        access_token: TOKEN,
      }),
      201,
    );
    const forbidden = await expectJson<{ error: { code: string } }>(
      call('POST', `/integrations/${privateBridge.id}/check`, owner),
      403,
    );
    expect(forbidden.error.code).toBe('target_forbidden');
  });

  it('lets only workspace managers see or change integrations and iframes', async () => {
    for (const path of ['/integrations', '/iframes']) {
      await expectJson(call('GET', path, editor), 403);
    }
    await expectJson(call('DELETE', `/integrations/${integration.id}`, editor), 403);
    await expectJson(call('DELETE', `/integrations/${integration.id}`, owner), 200);
    await expectJson(call('GET', `/integrations/${integration.id}`, owner), 404);
  });

  it("answers the widget's configuration to its allowed origins only, with a live key of its workspace", async () => {
    const key = await expectJson<{ id: string }>(
      call('POST', '/app-keys', owner, { name: 'widget' }),
      201,
    );
    const foreignKey = await expectJson<{ id: string }>(
      stack.call('POST', `/api/workspaces/${otherWorkspaceId}/app-keys`, owner.token, {
        name: 'other',
      }),
      201,
    );
    const body = {
      name: 'Intranet widget',
      allowed_origins: ['https://intranet.example.com'],
      app_key_id: key.id,
      theme: { title: 'Ask Pelita', primary_color: '#0f766e' },
    };
    await expectJson(call('POST', '/iframes', owner, { ...body, app_key_id: foreignKey.id }), 400);
    await expectJson(
      call('POST', '/iframes', owner, { ...body, allowed_origins: ['https://x.example.com/page'] }),
      400,
    );
    const iframe = await expectJson<Iframe>(call('POST', '/iframes', owner, body), 201);
    expect(iframe.theme).toEqual({
      title: 'Ask Pelita',
      greeting: 'How can I help?',
      primary_color: '#0f766e',
      position: 'bottom-right',
      dark_mode: false,
    });

    const config = (origin?: string) =>
      fetch(`${stack.url}/embed/${iframe.id}/config`, {
        headers: origin ? { origin } : {},
      });
    const allowed = await config('https://intranet.example.com');
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://intranet.example.com');
    expect(await allowed.json()).toMatchObject({
      id: iframe.id,
      workspace_name: 'Desk',
      theme: { title: 'Ask Pelita' },
    });
    expect((await config('https://evil.example.com')).status).toBe(404);
    expect((await config()).status).toBe(404);

    const patched = await expectJson<Iframe>(
      call('PATCH', `/iframes/${iframe.id}`, owner, { theme: { dark_mode: true } }),
      200,
    );
    expect(patched.theme).toMatchObject({ title: 'Ask Pelita', dark_mode: true });

    await expectJson(call('DELETE', `/app-keys/${key.id}`, owner), 200);
    expect(
      await expectJson<Iframe>(call('GET', `/iframes/${iframe.id}`, owner), 200),
    ).toMatchObject({ app_key_active: false });
    expect((await config('https://intranet.example.com')).status).toBe(404);
  });
});
