// Drives a running Pelita install through its pods' Services: the bootstrap administrator logs
// in, creates a role, a user in it, a feature and a grant; the user is allowed by OPA
// (policy-sync's sidecar, fed from the user service), then denied once the grant is switched
// off; the HTTP proxy and the DB proxy answer real calls; the summarizer summarizes a text
// through the LLM stand-in; a document (an image of text) is uploaded to core-backend, crosses
// the whole document pipeline (OCR API, worker, office converter, OCR engine, summarizer) and is
// cited when a room is asked about it; an OCR worker killed mid-task loses nothing.
//
// One script for both end-to-end runs: tools/e2e/run.sh (`make e2e`, the real node) and
// tools/kind-e2e/run.sh (kind, the CI workflow). Everything it needs comes from the environment
// (E2E_*: the Services' URLs as this process reaches them, tokens, the stand-ins' addresses as the
// pods reach them, the command that kills an OCR worker). Plain Node 20+ (no build step, no
// dependency): fetch and node:assert. Exits non-zero on the first failure.
import assert from 'node:assert/strict';
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

const env = (name) => {
  const value = process.env[name];
  if (!value)
    throw new Error(
      `drive: ${name} is not set (run through tools/e2e/run.sh or tools/kind-e2e/run.sh)`,
    );
  return value;
};
const unique = () => randomBytes(4).toString('hex');
const step = (what) => process.stdout.write(`-- ${what}\n`);

/** Convergence across pods has no event to await: poll until `probe` returns a truthy value. */
async function until(what, probe, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await sleep(500);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

async function call(base, method, path, { token, body, headers = {} } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

async function ok(base, method, path, options) {
  const res = await call(base, method, path, options);
  assert.ok(
    res.status < 300,
    `${method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`,
  );
  return res.json;
}

const users = env('E2E_USER_SERVICE_URL');

async function login(email, password) {
  const res = await call(users, 'POST', '/auth/login', { body: { email, password } });
  if (res.status !== 200)
    throw new Error(`login of ${email}: ${res.status} ${res.text.slice(0, 200)}`);
  return res.json.access_token;
}

async function adminToken() {
  step('the bootstrap administrator logs in');
  const token = await until('the administrator to log in', () =>
    login(env('E2E_ADMIN_EMAIL'), env('E2E_ADMIN_PASSWORD')),
  );
  // The user service asks OPA; the administrator is there once policy-sync has synced.
  await until('the administrator allowed by OPA', async () => {
    return (await call(users, 'GET', '/users', { token })).status === 200;
  });
  return token;
}

async function grantThenRevoke(admin) {
  step('a role, a user in it, a feature with one sub-feature, and a grant');
  const role = await ok(users, 'POST', '/roles', {
    token: admin,
    body: { name: `e2e-${unique()}`, level: 50 },
  });
  const username = `e2e${unique()}`;
  const password = `e2e-pw-${unique()}`;
  await ok(users, 'POST', '/users', {
    token: admin,
    body: {
      email: `${username}@e2e.pelita.test`,
      username,
      full_name: 'E2E',
      password,
      role_id: role.id,
    },
  });
  const feature = await ok(users, 'POST', '/features', {
    token: admin,
    body: { name: `e2e-${unique()}`, label: 'E2E' },
  });
  const sub = await ok(users, 'POST', `/features/${feature.id}/sub-features`, {
    token: admin,
    body: { name: 'list', label: 'List features', method: 'GET', path: '/features' },
  });
  const policy = await ok(users, 'POST', '/policies', {
    token: admin,
    body: { role_id: role.id, sub_feature_id: sub.id },
  });

  const user = await until('the new user to log in', () =>
    login(`${username}@e2e.pelita.test`, password),
  );
  step('OPA allows the granted call');
  await until('OPA to allow GET /features', async () => {
    return (await call(users, 'GET', '/features', { token: user })).status === 200;
  });
  step('OPA denies it once the grant is switched off');
  await ok(users, 'PATCH', `/policies/${policy.id}`, { token: admin, body: { status: false } });
  await until('OPA to deny GET /features', async () => {
    return (await call(users, 'GET', '/features', { token: user })).status === 403;
  });
  // A call never granted is denied from the start.
  assert.equal((await call(users, 'GET', '/roles', { token: user })).status, 403);
}

function proxyCall() {
  return {
    base: env('E2E_HTTP_PROXY_URL'),
    body: {
      connection: { host: env('E2E_LLM_URL'), endpoint: { path: '/models', method: 'get' } },
    },
  };
}

/** The node's address is private: refused unless the proxy's ALLOWED_TARGETS lists it. */
async function httpProxyGuards() {
  step('http-proxy refuses a call without its token, and a private target');
  const { base, body } = proxyCall();
  assert.equal((await call(base, 'POST', '/proxy', { body })).status, 401, 'no token: 401');
  const res = await call(base, 'POST', '/proxy', { body, token: env('E2E_HTTP_PROXY_TOKEN') });
  assert.equal(res.status, 403, res.text.slice(0, 300));
  assert.equal(res.json?.error?.code, 'target_forbidden');
}

async function httpProxyForwards() {
  step('http-proxy forwards a described call (to the LLM stand-in on the node)');
  const { base, body } = proxyCall();
  const res = await until('http-proxy to forward', async () => {
    const answer = await call(base, 'POST', '/proxy', { body, token: env('E2E_HTTP_PROXY_TOKEN') });
    return answer.status === 200 && answer;
  });
  assert.ok(Array.isArray(res.json?.data), `a model list: ${res.text.slice(0, 300)}`);
}

async function dbProxy() {
  step('db-proxy runs SQL on the tenant database (PostgreSQL on the node)');
  const base = env('E2E_DB_PROXY_URL');
  const db = new URL(env('E2E_POSTGRES_URL'));
  const headers = {
    'x-db-mode': 'postgresql',
    'x-db-host': db.hostname,
    'x-db-port': db.port,
    'x-db-user': decodeURIComponent(db.username),
    'x-db-password': decodeURIComponent(db.password),
    'x-db-name': db.pathname.slice(1),
  };
  const token = env('E2E_DB_PROXY_TOKEN');
  assert.equal(
    (await call(base, 'GET', '/check-connection', { headers })).status,
    401,
    'no token: 401',
  );
  assert.deepEqual(await ok(base, 'GET', '/check-connection', { headers, token }), {
    status: 'connected',
  });
  const result = await ok(base, 'POST', '/execute', {
    headers,
    token,
    body: { query: 'SELECT 40 + 2 AS answer' },
  });
  assert.deepEqual(result.result, [{ answer: 42 }]);
}

async function summarize() {
  step('the summarizer summarizes a text through the LLM stand-in');
  const base = env('E2E_SUMMARIZER_URL');
  const text = [
    'Pelita runs on a real node in this test. The operator created every Deployment.',
    'The summarizer reads this file, asks the language model stand-in for a summary,',
    'and returns the result as a JSON download.',
  ].join(' ');
  const form = new FormData();
  form.set('file', new Blob([text], { type: 'text/plain' }), 'e2e.txt');
  form.set('enable_ner', 'false');
  const res = await fetch(`${base}/summarize`, {
    method: 'POST',
    body: form,
    signal: AbortSignal.timeout(120_000),
  });
  const body = await res.text();
  assert.equal(res.status, 200, body.slice(0, 300));
  const summary = JSON.parse(body);
  assert.ok(JSON.stringify(summary).length > 50, `a summary: ${body.slice(0, 300)}`);
}

const FIXTURE = new URL('./fixtures/harbour-log.png', import.meta.url);
// The fixture is a picture of this text (no text layer): only OCR can read it.
const QUESTION = 'When does the lighthouse keeper record the tide?';

/** A document upload to core-backend, read by the local engine (the in-install ocr-engine). */
async function uploadDocument(core, workspace, token, name) {
  const form = new FormData();
  form.set('file', new Blob([await readFile(FIXTURE)], { type: 'image/png' }), name);
  form.set('processing', 'local');
  const res = await fetch(`${core}/api/workspaces/${workspace}/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
    signal: AbortSignal.timeout(60_000),
  });
  const body = await res.text();
  assert.equal(res.status, 201, `upload of ${name}: ${res.status} ${body.slice(0, 300)}`);
  return JSON.parse(body);
}

/** Follows a document to `done` with its summary, printing each stage it passes through. */
async function documentDone(core, workspace, token, id, timeoutMs = 300_000) {
  let seen = '';
  return until(
    `document ${id} to be done with its summary`,
    async () => {
      const doc = await ok(core, 'GET', `/api/workspaces/${workspace}/documents/${id}`, { token });
      const now = `${doc.state}/${doc.stage} ${doc.progress_pct}%, summary ${doc.summary_state}`;
      if (now !== seen) process.stdout.write(`   ${(seen = now)}\n`);
      if (doc.state === 'failed') throw new Error(`document failed: ${JSON.stringify(doc)}`);
      return doc.state === 'done' && doc.summary_state !== 'pending' && doc;
    },
    timeoutMs,
  );
}

/** Reads a whole server-sent event stream: [{event, data}] with `data` parsed as JSON. */
async function readEvents(res) {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const lines = block.split('\n');
      const field = (name) =>
        lines
          .filter((line) => line.startsWith(`${name}: `))
          .map((line) => line.slice(name.length + 2))
          .join('\n');
      return { event: field('event'), data: JSON.parse(field('data') || 'null') };
    });
}

async function documents(admin) {
  const core = env('E2E_CORE_BACKEND_URL');
  step('core-backend: a workspace, and a document (an image of text) uploaded to it');
  const workspace = await until('core-backend to accept the administrator', async () => {
    const res = await call(core, 'POST', '/api/workspaces', {
      token: admin,
      body: { name: `e2e-${unique()}` },
    });
    if (res.status !== 201) throw new Error(`${res.status} ${res.text.slice(0, 200)}`);
    return res.json.id;
  });
  const doc = await uploadDocument(core, workspace, admin, 'harbour-log.png');
  step(`the document crosses the pipeline (converter, OCR engine, summarizer): ${doc.id}`);
  const done = await documentDone(core, workspace, admin, doc.id);
  assert.equal(done.summary_state, 'done', 'the summarizer wrote a summary');
  const ocr = await ok(
    core,
    'GET',
    `/api/workspaces/${workspace}/documents/${doc.id}/ocr-results`,
    {
      token: admin,
    },
  );
  assert.match(JSON.stringify(ocr), /lighthouse/i, 'the OCR read the picture');
  const summary = await ok(
    core,
    'GET',
    `/api/workspaces/${workspace}/documents/${doc.id}/summary`,
    {
      token: admin,
    },
  );
  assert.ok(JSON.stringify(summary).length > 50, `a summary: ${JSON.stringify(summary)}`);

  step('a room is asked about it: the streamed answer cites the document');
  const room = await ok(core, 'POST', `/api/workspaces/${workspace}/rooms`, {
    token: admin,
    body: { name: 'e2e', knowledge_sources: [{ type: 'document', topic_id: [doc.id] }] },
  });
  const res = await fetch(`${core}/api/workspaces/${workspace}/rooms/${room.id}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ chat: QUESTION }),
    signal: AbortSignal.timeout(120_000),
  });
  assert.equal(res.status, 200, `asking: ${res.status}`);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const events = await readEvents(res);
  assert.equal(events[0]?.event, 'sources', `first event: ${JSON.stringify(events[0])}`);
  const cited = events[0].data.filter((passage) => passage.id === doc.id);
  assert.ok(cited.length > 0, `the document among the sources: ${JSON.stringify(events[0].data)}`);
  assert.ok(
    cited.some((passage) => /tide/i.test(passage.text)),
    'a passage with the OCR text',
  );
  assert.ok(
    events.some((e) => e.event === 'token'),
    'the answer streamed',
  );
  const last = events.at(-1);
  assert.equal(last?.event, 'done', `last event: ${JSON.stringify(last)}`);
  assert.equal(last.data.status, 'complete');
  assert.ok(last.data.response.length > 0, 'an answer');
  assert.deepEqual(
    last.data.knowledge_source_detail.find((source) => source.type === 'document'),
    { type: 'document', topic_id: [doc.id] },
    'the record names the document as its source',
  );
  return { core, workspace };
}

/**
 * The OCR worker is killed (SIGKILL, E2E_KILL_OCR_WORKER) while it runs a task: its queue
 * message stays pending, and once idle for CLAIM_IDLE_MS the worker that replaced it claims it
 * and runs it again (services/ocr-service, "Nothing is lost"). Seen through the OCR API: the
 * task's `started_at` is the second run's. A task that finished before the kill landed proves
 * nothing: then another one is tried.
 */
async function workerKilledMidTask(admin, { core, workspace }) {
  const ocr = env('E2E_OCR_SERVICE_URL');
  const kill = env('E2E_KILL_OCR_WORKER');
  const status = (task) => ok(ocr, 'GET', `/api/v1/tasks/${encodeURIComponent(task)}/status`);
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const doc = await uploadDocument(core, workspace, admin, `harbour-log-${attempt}.png`);
    step(`the OCR worker is killed while it runs task ${doc.task_id}`);
    const running = await until(
      'the worker to take the task',
      async () => {
        const s = await status(doc.task_id);
        return s.status !== 'pending' && s;
      },
      120_000,
    );
    if (running.status !== 'processing') {
      step(`the task was ${running.status} before the kill; again`);
      continue;
    }
    process.stdout.write(`   ${running.stage} ${running.progress_pct}%: ${kill}\n`);
    execSync(kill, { stdio: 'inherit', timeout: 60_000 });
    const done = await documentDone(core, workspace, admin, doc.id);
    const final = await status(doc.task_id);
    assert.equal(final.status, 'done');
    if (final.started_at === running.started_at) {
      step('the first run ended before the kill landed; again');
      continue;
    }
    process.stdout.write(
      `   run again from ${final.started_at} (first run from ${running.started_at}): ${final.stage_detail ?? ''}\n`,
    );
    assert.equal(done.summary_state, 'done');
    return;
  }
  throw new Error('three tasks in a row ended before the worker was killed');
}

// Phases, as run.sh calls them: `platform` (everything the install does as applied), `login`
// (after a pod was replaced), `http-proxy` (once the proxy may reach the stand-ins' private
// address), `documents` (core-backend and the document pipeline, the OCR worker killed).
const phase = process.argv[2] ?? 'platform';
if (phase === 'platform') {
  const admin = await adminToken();
  await grantThenRevoke(admin);
  await httpProxyGuards();
  await dbProxy();
  await summarize();
} else if (phase === 'login') {
  const admin = await adminToken();
  step('what was created before the pod was replaced is still there');
  const roles = await ok(users, 'GET', '/roles', { token: admin });
  assert.match(JSON.stringify(roles), /"e2e-[0-9a-f]{8}"/, 'the role created earlier');
} else if (phase === 'http-proxy') {
  await httpProxyForwards();
} else if (phase === 'documents') {
  const admin = await adminToken();
  const workspace = await documents(admin);
  await workerKilledMidTask(admin, workspace);
} else {
  throw new Error(`drive: no phase ${phase}`);
}
process.stdout.write(`drive ${phase}: all checks passed\n`);
