// The attack phase of `make e2e` (tools/e2e/attack-phase.sh runs it): from pods it starts itself,
// TCP connections to the install's pods, each checked at its Service IP and at each pod IP, and
// OPA's data API asked without policy-sync's token. Three callers:
//   foreign   a pod in another namespace (another tenant): reaches no port of the install;
//   intruder  a pod in the install's namespace with no role of the install: reaches neither
//             db-proxy, http-proxy, OPA (policy-sync's sidecar) nor the OCR API;
//   admitted  a pod carrying core-backend's selector labels, which the policies admit to those
//             four: reaches them; and OPA still refuses it `data` without the token.
// `node attack.mjs enforced` expects that; `node attack.mjs open` (spec.networkPolicy.enabled
// false) expects every connection to get through, so the phase can fail. It prints one line per
// probe (from, to, address, expected, got) and exits non-zero when any differs; policies take a
// moment to reach the node's rules, so a differing table is probed again for up to 60 s first.
//
// The probe pods run the operator image's `node` (no image of their own). The admitted pod is
// owned by a ConfigMap (so core-backend's ReplicaSet does not adopt it, though its labels match)
// and has a readiness gate nothing sets (so it never becomes an endpoint of core-backend's
// Service). Plain Node 20+, no dependency; kubectl from the environment.
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`attack: ${name} is not set (run through tools/e2e/run.sh)`);
  return value;
};
const KUBECTL = env('KUBECTL_BIN');
const NS = env('NS');
const INSTALL = env('INSTALL');
const ATTACK_NS = env('ATTACK_NS');
const IMAGE = env('PROBE_IMAGE');
const NODE_SELECTOR = env('NODE_SELECTOR');
const NODE_TAINT_KEY = env('NODE_TAINT_KEY');
const OWNER = 'attack-probes';
const MANAGED_BY = 'pelita-operator';
/** On every object the phase creates (attack-phase.sh deletes by it). */
const PROBE_LABEL = { 'pelita.io/e2e': 'attack-probe' };
/** What the policies guard beyond the install's own call graph (the issue's list). */
const GUARDED = [
  { service: 'db-proxy', port: 'http' },
  { service: 'http-proxy', port: 'http' },
  { service: 'policy-sync', port: 'opa' },
  { service: 'ocr-service', port: 'http' },
];
const say = (line) => process.stdout.write(`${line}\n`);
const CONNECT_TIMEOUT_MS = 3_000;
const SETTLE_MS = 60_000;

const kubectl = (args, input) =>
  execFileSync(KUBECTL, args, { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'inherit'] });
const getJson = (args) => JSON.parse(kubectl(['get', ...args, '-o', 'json']));
const apply = (objects) =>
  kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));

function probePod(namespace, name, labels, extra = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace, name, labels, ...extra.metadata },
    spec: {
      containers: [
        {
          name: 'probe',
          image: IMAGE,
          imagePullPolicy: 'Never',
          command: ['node', '-e', 'setInterval(() => {}, 1 << 30)'],
        },
      ],
      terminationGracePeriodSeconds: 0,
      automountServiceAccountToken: false,
      ...extra.spec,
    },
  };
}

/** The three callers, created once (the namespace annotated for the real node, as run.sh does). */
async function startCallers() {
  apply([
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: ATTACK_NS,
        annotations: {
          'scheduler.alpha.kubernetes.io/node-selector': NODE_SELECTOR,
          'scheduler.alpha.kubernetes.io/defaultTolerations': JSON.stringify([
            { key: NODE_TAINT_KEY, operator: 'Exists', effect: 'NoSchedule' },
          ]),
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: NS, name: OWNER, labels: PROBE_LABEL },
    },
  ]);
  // A pod created right after its namespace may be refused until the default ServiceAccount exists.
  for (let i = 0; i < 30 && !exists(['serviceaccount', 'default', '-n', ATTACK_NS]); i++) {
    await sleep(1_000);
  }
  const owner = getJson(['configmap', OWNER, '-n', NS]);
  apply([
    probePod(ATTACK_NS, 'foreign', PROBE_LABEL),
    probePod(NS, 'intruder', PROBE_LABEL),
    probePod(
      NS,
      'admitted',
      {
        ...PROBE_LABEL,
        'app.kubernetes.io/name': 'core-backend',
        'app.kubernetes.io/instance': INSTALL,
      },
      {
        metadata: {
          ownerReferences: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: OWNER,
              uid: owner.metadata.uid,
              controller: true,
            },
          ],
        },
        spec: { readinessGates: [{ conditionType: 'pelita.io/probe-only' }] },
      },
    ),
  ]);
  for (const [namespace, pod] of [
    [ATTACK_NS, 'foreign'],
    [NS, 'intruder'],
    [NS, 'admitted'],
  ]) {
    kubectl([
      'wait',
      '-n',
      namespace,
      `pod/${pod}`,
      '--for=condition=ContainersReady',
      '--timeout=2m',
    ]);
  }
}

function exists(args) {
  try {
    execFileSync(KUBECTL, ['get', ...args], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Every port of the install: each Service's IP and port, and each of its pods' IP and port. */
function installTargets() {
  const services = getJson(['services', '-n', NS, '-l', `app.kubernetes.io/instance=${INSTALL}`]);
  const pods = getJson([
    'pods',
    '-n',
    NS,
    '-l',
    `app.kubernetes.io/instance=${INSTALL},app.kubernetes.io/managed-by=${MANAGED_BY}`,
    '--field-selector=status.phase=Running',
  ]);
  const targets = [];
  for (const svc of services.items) {
    const service = svc.metadata.labels['app.kubernetes.io/name'];
    if (svc.spec.clusterIP && svc.spec.clusterIP !== 'None') {
      for (const port of svc.spec.ports) {
        const to = `${service} Service`;
        targets.push({
          service,
          portName: port.name,
          to,
          host: svc.spec.clusterIP,
          port: port.port,
        });
      }
    }
  }
  // A pod on its way out (a rolled or killed one) may already refuse: only the live ones.
  for (const pod of pods.items.filter((p) => !p.metadata.deletionTimestamp && p.status.podIP)) {
    const service = pod.metadata.labels['app.kubernetes.io/name'];
    for (const container of pod.spec.containers) {
      for (const port of container.ports ?? []) {
        const to = `${service} pod ${pod.metadata.name.slice(`${INSTALL}-${service}-`.length)}`;
        targets.push({
          service,
          portName: port.name,
          to,
          host: pod.status.podIP,
          port: port.containerPort,
        });
      }
    }
  }
  return targets;
}

const isGuarded = (target) =>
  GUARDED.some((g) => g.service === target.service && g.port === target.portName);

/** The probes of one round and what each should see. */
function plan(mode, targets) {
  const open = mode === 'open';
  const guarded = targets.filter(isGuarded);
  const missing = GUARDED.filter((g) => !guarded.some((t) => t.service === g.service));
  if (missing.length > 0) throw new Error(`attack: no ${missing.map((g) => g.service)} to probe`);
  return [
    ...targets.map((t) => ({ from: 'foreign', ...t, expected: open ? 'open' : 'blocked' })),
    ...guarded.map((t) => ({ from: 'intruder', ...t, expected: open ? 'open' : 'blocked' })),
    ...guarded.map((t) => ({ from: 'admitted', ...t, expected: 'open' })),
  ];
}

/**
 * Runs in the probe pod (`node -e`): a TCP connection per probe, all at once; `connected`,
 * `refused` or `timeout` (or the error code) each. HTTP probes give the status code.
 */
const IN_POD = `
const net = require('node:net');
const probes = JSON.parse(process.argv[1]);
const tcp = ({ host, port }) => new Promise((resolve) => {
  const socket = net.connect({ host, port });
  const done = (got) => { socket.destroy(); resolve(got); };
  socket.setTimeout(${CONNECT_TIMEOUT_MS}, () => done('timeout'));
  socket.on('connect', () => done('connected'));
  socket.on('error', (e) => done(e.code === 'ECONNREFUSED' ? 'refused' : e.code ?? String(e)));
});
const http = ({ url, method, headers, body }) =>
  fetch(url, { method, headers, body, signal: AbortSignal.timeout(${CONNECT_TIMEOUT_MS}) })
    .then((r) => String(r.status), (e) => String(e.cause?.code ?? e.name));
Promise.all(probes.map((p) => (p.url ? http(p) : tcp(p)))).then((r) => console.log(JSON.stringify(r)));
`;

function runProbes(from, probes) {
  if (probes.length === 0) return [];
  const namespace = from === 'foreign' ? ATTACK_NS : NS;
  const out = kubectl([
    'exec',
    '-n',
    namespace,
    from,
    '--',
    'node',
    '-e',
    IN_POD,
    JSON.stringify(probes),
  ]);
  return JSON.parse(out.trim().split('\n').at(-1));
}

function probeAll(probes) {
  const results = new Map();
  for (const from of ['foreign', 'intruder', 'admitted']) {
    const mine = probes.filter((p) => p.from === from);
    runProbes(from, mine).forEach((got, i) => results.set(mine[i], got));
  }
  return probes.map((p) => {
    const got = results.get(p);
    const ok = p.expected === 'open' ? got === 'connected' : got === 'refused' || got === 'timeout';
    return { ...p, got, ok };
  });
}

/** OPA's data API from the admitted pod: reachable (a decision answers), `data` refused. */
function opaProbes(targets) {
  const opa = targets.find(
    (t) => t.service === 'policy-sync' && t.portName === 'opa' && t.to.endsWith('Service'),
  );
  const base = `http://${opa.host}:${opa.port}`;
  const json = { 'content-type': 'application/json' };
  return [
    {
      what: 'POST /v1/data/pelita/authz/allow (a decision)',
      expected: '200',
      url: `${base}/v1/data/pelita/authz/allow`,
      method: 'POST',
      headers: json,
      body: '{"input":{}}',
    },
    { what: 'GET /v1/data, no token', expected: '401', url: `${base}/v1/data`, method: 'GET' },
    {
      what: 'PUT /v1/data/pelita, no token',
      expected: '401',
      url: `${base}/v1/data/pelita`,
      method: 'PUT',
      headers: json,
      body: '{}',
    },
    {
      what: 'GET /v1/data, a wrong token',
      expected: '401',
      url: `${base}/v1/data`,
      method: 'GET',
      headers: { authorization: 'Bearer not-the-opa-token' },
    },
    {
      what: 'PUT /v1/policies/x, a wrong token',
      expected: '401',
      url: `${base}/v1/policies/x`,
      method: 'PUT',
      headers: { authorization: 'Bearer not-the-opa-token' },
      body: 'package x',
    },
  ];
}

function printTable(title, rows, columns) {
  const widths = columns.map(([key, head]) =>
    Math.max(head.length, ...rows.map((r) => String(r[key]).length)),
  );
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join('  ');
  say(`\n${title}`);
  say(line(columns.map(([, head]) => head)));
  for (const row of rows) say(line(columns.map(([key]) => row[key])));
}

async function main() {
  const mode = process.argv[2];
  if (mode !== 'enforced' && mode !== 'open') throw new Error('usage: attack.mjs enforced|open');
  await startCallers();
  const targets = installTargets();
  const probes = plan(mode, targets);
  const deadline = Date.now() + SETTLE_MS;
  let rows;
  for (let attempt = 1; ; attempt++) {
    rows = probeAll(probes);
    const wrong = rows.filter((r) => !r.ok).length;
    if (wrong === 0 || Date.now() > deadline) {
      say(`attack (${mode}): ${rows.length} connections probed, attempt ${attempt}`);
      break;
    }
    say(
      `attack (${mode}): ${wrong} of ${rows.length} not yet as expected (attempt ${attempt}); again in 2 s`,
    );
    await sleep(2_000);
  }
  const table = rows.map((r) => ({
    ...r,
    address: `${r.host}:${r.port}`,
    verdict: r.ok ? 'ok' : 'FAIL',
  }));
  printTable(`NetworkPolicy probes (${mode})`, table, [
    ['from', 'from'],
    ['to', 'to'],
    ['address', 'address'],
    ['expected', 'expected'],
    ['got', 'got'],
    ['verdict', ''],
  ]);
  const opa = opaProbes(targets);
  const statuses = runProbes('admitted', opa);
  const opaRows = opa.map((p, i) => ({
    ...p,
    from: 'admitted',
    got: statuses[i],
    verdict: statuses[i] === p.expected ? 'ok' : 'FAIL',
  }));
  printTable("OPA's API without policy-sync's token", opaRows, [
    ['from', 'from'],
    ['what', 'request'],
    ['expected', 'expected'],
    ['got', 'got'],
    ['verdict', ''],
  ]);
  const failed = [...table, ...opaRows].filter((r) => r.verdict === 'FAIL');
  if (failed.length > 0) {
    process.stderr.write(
      `attack (${mode}): ${failed.length} probe(s) differ from the expectation\n`,
    );
    process.exit(1);
  }
  say(`attack (${mode}): all ${table.length + opaRows.length} probes as expected`);
}

await main();
