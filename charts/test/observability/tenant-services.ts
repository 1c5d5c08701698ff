/**
 * One tenant's Pelita services, in this process as `main.ts` would run them (`serveInProcess`),
 * on the real servers of `make testenv`: the user service and policy-sync with a real OPA between
 * them, db-proxy, http-proxy, the office converter, the OCR engine, the summarizer (on the LLM
 * stand-in), the license service, the core backend, the OCR API and the OCR worker. Each is
 * described as the scrape target the install's ServiceMonitor would make of it, with the labels
 * the dashboards and alerts select by.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createLogger,
  loadConfig,
  serveInProcess,
  type Logger,
  type RunningServer,
  type Service,
} from '@pelita/kit';
import { createCoreBackend, settingsSchema as coreBackendSettings } from '@pelita/core-backend';
import { createDbProxyService, settingsSchema as dbProxySettings } from '@pelita/db-proxy';
import { createHttpProxyService, settingsSchema as httpProxySettings } from '@pelita/http-proxy';
import { createLicenseService, settingsSchema as licenseSettings } from '@pelita/license-service';
import { startLlmStub } from '@pelita/llm-stub';
import { createOcrEngineService, settingsSchema as ocrEngineSettings } from '@pelita/ocr-engine';
import {
  createOcrApiService,
  createWorkerService,
  settingsSchema as ocrSettings,
} from '@pelita/ocr-service';
import {
  createOfficeConverterService,
  settingsSchema as converterSettings,
} from '@pelita/office-converter';
import { createPolicySyncService, settingsSchema as policySyncSettings } from '@pelita/policy-sync';
import { createSummarizerService, settingsSchema as summarizerSettings } from '@pelita/summarizer';
import { POLICIES_DIR, freePort, requireEnv, startOpa } from '@pelita/testenv';
import { createUserService, settingsSchema as userSettings } from '@pelita/user-service';
import type { Target } from './prometheus';
import { createDatabase } from './test-database';

export const ADMIN = {
  email: `admin-${randomBytes(4).toString('hex')}@pelita.test`,
  password: 'observability-admin-pw-7f3a',
  username: 'admin',
};

export interface TenantIdentity {
  namespace: string;
  install: string;
  tenant: string;
}

export interface RunningComponent {
  component: string;
  url: string;
}

export interface TenantServices {
  identity: TenantIdentity;
  components: RunningComponent[];
  /** Their scrape targets. */
  targets: Target[];
  stop(): Promise<void>;
}

/** Unique names per run, so series of earlier runs and other tests never match. */
export function newTenantIdentity(): TenantIdentity {
  const run = randomBytes(3).toString('hex');
  return { namespace: `obs-${run}`, install: `acme-${run}`, tenant: `acme-${run}` };
}

function targetLabels(identity: TenantIdentity, component: string) {
  const serviceName = `${identity.install}-${component}`;
  return {
    namespace: identity.namespace,
    install: identity.install,
    tenant: identity.tenant,
    component,
    service: serviceName,
    job: serviceName,
    pod: `${serviceName}-0`,
    endpoint: 'http',
  };
}

export async function startTenantServices(identity: TenantIdentity): Promise<TenantServices> {
  const env = requireEnv(
    'REDIS_URL',
    'SMTP_HOST',
    'SMTP_PORT',
    'OPENSEARCH_URL',
    'S3_ENDPOINT',
    'S3_ACCESS_KEY',
    'S3_SECRET_KEY',
    'S3_REGION',
  );
  const cleanups: Array<() => Promise<void>> = [];
  const components: RunningComponent[] = [];
  const targets: Target[] = [];
  const logger: Logger = createLogger({ name: 'observability', level: 'silent' });
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };

  const serve = async (component: string, service: Service, port?: number) => {
    const running: RunningServer = await serveInProcess(service, logger, { port });
    cleanups.push(() => running.stop());
    components.push({ component, url: running.url });
    targets.push({ address: new URL(running.url).host, labels: targetLabels(identity, component) });
    return running.url;
  };

  try {
    const dir = mkdtempSync(path.join(tmpdir(), 'pelita-observability-'));
    cleanups.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));

    // policy-sync's pod: OPA loads policies/ and the data.json policy-sync writes.
    const opa = await startOpa([POLICIES_DIR, dir]);
    cleanups.push(() => opa.stop());

    // The user service signs access tokens; the core backend checks them with the public half.
    const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const database = await createDatabase();
    cleanups.push(() => database.drop());
    const policySyncPort = await freePort();
    const userService = await serve(
      'user-service',
      createUserService(
        loadConfig(userSettings, {
          DATABASE_URL: database.url,
          REDIS_URL: env.REDIS_URL,
          REDIS_KEY_PREFIX: `observability:${identity.install}:`,
          URL_OPA: opa.url,
          POLICY_SYNC_URL: `http://127.0.0.1:${policySyncPort}`,
          SMTP_HOST: env.SMTP_HOST,
          SMTP_PORT: env.SMTP_PORT,
          FRONTEND_URL: 'https://app.pelita.test',
          FIRST_ADMIN_EMAIL: ADMIN.email,
          FIRST_ADMIN_PASSWORD: ADMIN.password,
          FIRST_ADMIN_USERNAME: ADMIN.username,
          JWT_PRIVATE_KEY: signing.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        }),
        logger,
      ),
    );
    await serve(
      'policy-sync',
      createPolicySyncService(
        loadConfig(policySyncSettings, {
          URL_USER: userService,
          URL_OPA: opa.url,
          POLICY_DATA_FILE: path.join(dir, 'data.json'),
          REDIS_URL: env.REDIS_URL,
          SYNC_CHANNEL: `pelita:observability:${identity.install}`,
          OPA_PROBE_INTERVAL_MS: '0',
        }),
        logger,
      ),
      policySyncPort,
    );

    await serve(
      'db-proxy',
      createDbProxyService(loadConfig(dbProxySettings, { ALLOWED_DB_HOSTS: '127.0.0.1' }), logger),
    );
    await serve('http-proxy', createHttpProxyService(loadConfig(httpProxySettings, {}), logger));
    const converter = await serve(
      'office-converter',
      createOfficeConverterService(loadConfig(converterSettings, { TEMP_DIR: dir }), logger),
    );
    const engine = await serve(
      'ocr-engine',
      createOcrEngineService(
        loadConfig(ocrEngineSettings, { TASK_DIR: path.join(dir, 'engine') }),
        logger,
      ),
    );
    const llm = await startLlmStub();
    cleanups.push(() => llm.close());
    const summarizer = await serve(
      'summarizer',
      createSummarizerService(
        loadConfig(summarizerSettings, {
          BASE_URL_LOCAL: llm.url,
          MODEL_LOCAL: 'pelita-stub',
          TEMP_DIR: dir,
        }),
        logger,
      ),
    );
    const run = identity.install;
    const licenseDatabase = await createDatabase();
    cleanups.push(() => licenseDatabase.drop());
    await serve(
      'license-service',
      createLicenseService(
        loadConfig(licenseSettings, {
          DATABASE_URL: licenseDatabase.url,
          ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        }),
        logger,
      ),
    );
    const coreDatabase = await createDatabase();
    cleanups.push(() => coreDatabase.drop());
    await serve(
      'core-backend',
      createCoreBackend(
        loadConfig(coreBackendSettings, {
          DATABASE_URL: coreDatabase.url,
          REDIS_URL: env.REDIS_URL,
          REDIS_KEY_PREFIX: `observability:core:${run}:`,
          JWT_PUBLIC_KEY: signing.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
          ENCRYPTION_KEY: randomBytes(32).toString('hex'),
          OPENSEARCH_URL: env.OPENSEARCH_URL,
          KNOWLEDGE_INDEX: `knowledge-${run}`,
          INDEX_USER_ACTIVITY_LOG: `activity-${run}`,
          URL_USER: userService,
          URL_OPA: opa.url,
          TEMP_DIR: dir,
        }),
        logger,
      ),
    );
    cleanups.push(async () => {
      for (const index of [`knowledge-${run}`, `activity-${run}`]) {
        await fetch(`${env.OPENSEARCH_URL}/${index}`, { method: 'DELETE' });
      }
    });
    // The OCR API and its worker share the queue (Redis), the documents (MinIO) and the indexes.
    const ocr = loadConfig(ocrSettings, {
      REDIS_URL: env.REDIS_URL,
      REDIS_KEY_PREFIX: `observability:ocr:${run}`,
      OPENSEARCH_URL: env.OPENSEARCH_URL,
      INDEX_PDF_PARSING_RESULTS: `pdf-parsing-results-${run}`,
      INDEX_DOCUMENT_SUMMARIZE: `summarize_document_${run}`,
      INDEX_DOCUMENT_SUMMARIZE_CHUNK: `summarize_document_chunk_${run}`,
      S3_ENDPOINT: env.S3_ENDPOINT,
      S3_ACCESS_KEY: env.S3_ACCESS_KEY,
      S3_SECRET_KEY: env.S3_SECRET_KEY,
      S3_REGION: env.S3_REGION,
      S3_BUCKET: `ocr-${run}`,
      OCR_ENGINE_LOCAL_URL: engine,
      URL_CONVERTER: converter,
      URL_SUMMARIZER: summarizer,
      TEMP_DIR: dir,
      WORK_DIR: dir,
    });
    await serve('ocr-service', createOcrApiService(ocr, logger));
    await serve('ocr-worker', createWorkerService(ocr, logger));
    cleanups.push(async () => {
      for (const index of [
        `pdf-parsing-results-${run}`,
        `summarize_document_${run}`,
        `summarize_document_chunk_${run}`,
      ]) {
        await fetch(`${env.OPENSEARCH_URL}/${index}`, { method: 'DELETE' });
      }
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { identity, components, targets, stop };
}
