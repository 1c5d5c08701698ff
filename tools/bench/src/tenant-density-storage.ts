/**
 * The tenants' storage on the test servers, made by the services' own code with the settings the
 * operator renders: a database per tenant (`CREATE DATABASE ... TEMPLATE` of one database the
 * user service's and core-backend's migrations ran on), core-backend's start (migrations, the
 * knowledge and activity-log indexes) and the OCR API's start (its result index, its queue's
 * consumer group); then a fixed amount of data through core-backend's HTTP API and its knowledge
 * writer: a user and session, a workspace, an app key, PASSAGES passages, CHATS chat exchanges.
 */
import { randomUUID } from 'node:crypto';
import {
  createCoreBackend,
  settingsSchema as coreSettingsSchema,
  type Settings as CoreSettings,
} from '@pelita/core-backend';
import {
  ACCESS_TOKEN_ALGORITHM,
  ACCESS_TOKEN_ISSUER,
  loadConfig,
  serveInProcess,
  sessionKey,
  type Logger,
  type Service,
} from '@pelita/kit';
import { createOcrApiService, settingsSchema as ocrSettingsSchema } from '@pelita/ocr-service';
import { createUserService, settingsSchema as userSettingsSchema } from '@pelita/user-service';
import type { Redis } from 'ioredis';
import jwt from 'jsonwebtoken';
import type pg from 'pg';
import { json } from './core-backend';
import type { Tenant, TenantFactory } from './tenant-density-tenants';

const PASSAGES = 40;
const CHATS = 3;
export const CHAT_SESSION = 'density';

/** A service of one tenant, served in this process. */
export interface InProcessService {
  url: string;
  stop(): Promise<void>;
}

/** What a tenant's user can do, as the measured requests need it. */
export interface TenantUser {
  workspaceId: string;
  appKey: string;
  authorization: string;
}

/**
 * node-postgres reads PGUSER and PGPASSWORD from the process environment, where the pods have
 * them (the rendered URL carries no credentials); every tenant of the bench has the same ones.
 */
function exportPostgresCredentials(settings: Record<string, string>): void {
  for (const name of ['PGUSER', 'PGPASSWORD']) {
    const value = settings[name];
    if (value !== undefined) process.env[name] = value;
  }
}

/** Serves `service` here and starts it; a failed start stops it again. */
async function serveStarted(service: Service, logger: Logger): Promise<InProcessService> {
  const server = await serveInProcess(service, logger, { start: false });
  try {
    await service.start();
  } catch (err) {
    await server.stop();
    throw err;
  }
  return server;
}

/** Core-backend of one tenant, and what seeding its data reaches into. */
export interface TenantCore extends InProcessService {
  settings: CoreSettings;
  service: ReturnType<typeof createCoreBackend>;
}

export async function startCore(
  factory: TenantFactory,
  tenant: Tenant,
  logger: Logger,
): Promise<TenantCore> {
  const rendered = factory.settingsOf(tenant, 'core-backend');
  exportPostgresCredentials(rendered);
  const settings = loadConfig(coreSettingsSchema, rendered);
  // Access is allowed here: OPA is not what is measured (as in the other core-backend benches).
  const service = createCoreBackend(settings, logger, { decide: () => Promise.resolve(true) });
  return { ...(await serveStarted(service, logger)), settings, service };
}

export function startUserService(
  factory: TenantFactory,
  tenant: Tenant,
  logger: Logger,
): Promise<InProcessService> {
  const rendered = factory.settingsOf(tenant, 'user-service');
  exportPostgresCredentials(rendered);
  const settings = loadConfig(userSettingsSchema, rendered);
  return serveStarted(
    createUserService(settings, logger, { decide: () => Promise.resolve(true) }),
    logger,
  );
}

/** The OCR API's start makes its storage (result index, queue group); nothing else is kept. */
async function createOcrStorage(factory: TenantFactory, tenant: Tenant, logger: Logger) {
  const settings = loadConfig(ocrSettingsSchema, factory.settingsOf(tenant, 'ocr-service'));
  const server = await serveStarted(createOcrApiService(settings, logger), logger);
  await server.stop();
}

/**
 * The template database: the user service's and core-backend's migrations, run by starting
 * both for a tenant of its own (whose indexes are then removed again).
 */
export async function createTemplate(
  factory: TenantFactory,
  admin: pg.Pool,
  logger: Logger,
): Promise<{ template: Tenant; indexes: string[] }> {
  const template = factory.tenant(-1);
  await admin.query(`create database ${template.database}`);
  const user = await startUserService(factory, template, logger);
  await user.stop();
  const core = await startCore(factory, template, logger);
  await core.stop();
  return { template, indexes: indexesOf(factory, template) };
}

/** Every index name the tenant's services are configured with (the operator's deletion list). */
export function indexesOf(factory: TenantFactory, tenant: Tenant): string[] {
  const names = new Set<string>();
  for (const service of ['core-backend', 'user-service', 'ocr-service'] as const) {
    const settings = factory.settingsOf(tenant, service);
    for (const [name, value] of Object.entries(settings)) {
      if (name === 'KNOWLEDGE_INDEX' || name.startsWith('INDEX_')) names.add(value);
    }
  }
  return [...names];
}

/**
 * Makes one tenant's storage and data. Returns its user (kept for the measured tenant).
 */
export async function createTenant(
  factory: TenantFactory,
  tenant: Tenant,
  template: Tenant,
  admin: pg.Pool,
  redis: Redis,
  logger: Logger,
): Promise<TenantUser> {
  await admin.query(`create database ${tenant.database} template ${template.database}`);
  await createOcrStorage(factory, tenant, logger);
  const core = await startCore(factory, tenant, logger);
  try {
    return await seedTenant(core, tenant, redis);
  } finally {
    await core.stop();
  }
}

async function seedTenant(core: TenantCore, tenant: Tenant, redis: Redis): Promise<TenantUser> {
  const { settings } = core;
  const userId = randomUUID();
  await json(
    fetch(`${core.url}/utils/update-user-name/${userId}`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${settings.SERVICE_TOKEN}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ username: `user-${tenant.index}` }),
    }),
    'PUT /utils/update-user-name',
  );
  // The session the user service would keep, under the tenant's key prefix.
  const jti = randomUUID();
  await redis.set(`${settings.REDIS_KEY_PREFIX}${sessionKey(jti)}`, userId, 'EX', 86_400);
  const authorization = `Bearer ${jwt.sign(
    { username: `user-${tenant.index}` },
    tenant.platformKeys['jwt-private-key'] ?? '',
    {
      algorithm: ACCESS_TOKEN_ALGORITHM,
      issuer: ACCESS_TOKEN_ISSUER,
      subject: userId,
      jwtid: jti,
      expiresIn: 86_400,
    },
  )}`;
  const post = <T>(path: string, body: unknown, auth = authorization) =>
    json<T>(
      fetch(`${core.url}${path}`, {
        method: 'POST',
        headers: {
          authorization: auth,
          'content-type': 'application/json',
          'x-session-id': CHAT_SESSION,
        },
        body: JSON.stringify(body),
      }),
      `POST ${path}`,
    );
  const { id: workspaceId } = await post<{ id: string }>('/api/workspaces', {
    name: `workspace ${tenant.index}`,
  });
  const { key: appKey } = await post<{ key: string }>(`/api/workspaces/${workspaceId}/app-keys`, {
    name: 'density',
  });
  const document = randomUUID();
  await core.service.knowledge.replace(
    { resourceType: 'document', resourceId: document },
    ['chunk'],
    Array.from({ length: PASSAGES }, (_, position) => ({
      workspaceId,
      resourceType: 'document' as const,
      resourceId: document,
      kind: 'chunk' as const,
      position,
      title: `Harbour report ${tenant.index}`,
      text: `Passage ${position} of tenant ${tenant.index}: river levels, harbour traffic and the ferry timetable of week ${position % 52}.`,
    })),
  );
  for (let i = 0; i < CHATS; i += 1) {
    await post(
      '/open-api/chat/completions',
      {
        model: 'pelita-stub',
        messages: [{ role: 'user', content: `Question ${i}: when does the ferry leave?` }],
      },
      `Bearer ${appKey}`,
    );
  }
  return { workspaceId, appKey, authorization };
}
