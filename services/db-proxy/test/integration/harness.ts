/**
 * Shared by the integration suites: the proxy on a random port with its logs captured, and a
 * database and user of its own per suite on the real PostgreSQL and MariaDB of `make testenv`.
 * Their names end in a random run id: test files run in parallel, and other checkouts may test
 * against the same servers at the same time.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import { requireEnv } from '@pelita/testenv';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { createDbProxyService, settingsSchema } from '../../src';

export type Mode = 'postgresql' | 'mariadb' | 'mysql';

/** Captures every log line the service writes. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void) {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

export interface Proxy {
  url: string;
  logs: LogCapture;
  stop(): Promise<void>;
  /** Sends a request; the body is JSON when given. */
  call(
    method: 'GET' | 'POST',
    path: string,
    headers?: Record<string, string>,
    body?: unknown,
  ): Promise<{ status: number; body: any }>;
  execute(headers: Record<string, string>, query: string): Promise<{ status: number; body: any }>;
}

/**
 * Starts the proxy in-process with settings given as environment variables; the test databases
 * run on loopback, which the default ALLOWED_DB_HOSTS lets it reach.
 */
export async function startProxy(env: Record<string, string> = {}): Promise<Proxy> {
  const logs = new LogCapture();
  const settings = loadConfig(settingsSchema, {
    LOG_LEVEL: 'debug',
    ALLOWED_DB_HOSTS: '127.0.0.0/8,::1',
    ...env,
  });
  const logger = createLogger({ name: 'db-proxy', level: 'debug', destination: logs });
  const service = createDbProxyService(settings, logger);
  const running: RunningServer = await serveInProcess(service, logger);
  const call: Proxy['call'] = async (method, path, headers = {}, body) => {
    const res = await fetch(`${running.url}${path}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON (the API docs page): keep the text
    }
    return { status: res.status, body: parsed };
  };
  return {
    url: running.url,
    logs,
    stop: () => running.stop(),
    call,
    execute: (headers, query) => call('POST', '/execute', headers, { query }),
  };
}

/** A database and a user of its own on one server, with admin access for setting up. */
export interface Database {
  mode: Mode;
  headers: Record<string, string>;
  /** The test user's password: it must never appear in the logs. */
  password: string;
  /** Runs SQL as the server's superuser, in this database. */
  admin(sql: string): Promise<unknown[]>;
  drop(): Promise<void>;
}

const secret = (engine: string) => `Pw-${engine}-${randomBytes(9).toString('base64url')}`;
const runId = () => randomBytes(4).toString('hex');

export async function createPostgresDatabase(suite: string): Promise<Database> {
  const { POSTGRES_URL } = requireEnv('POSTGRES_URL');
  const server = new URL(POSTGRES_URL);
  const name = `dbproxy_${suite}_${runId()}`;
  const password = secret('pg');
  const root = new pg.Client({ connectionString: POSTGRES_URL });
  await root.connect();
  await root.query(`CREATE ROLE ${name}_user LOGIN PASSWORD '${password}'`);
  await root.query(`CREATE DATABASE ${name} OWNER ${name}_user`);
  await root.end();
  const adminUrl = new URL(POSTGRES_URL);
  adminUrl.pathname = `/${name}`;
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  // The test user owns the database; objects the admin creates in public are granted to it.
  await admin.query(`GRANT ALL ON SCHEMA public TO ${name}_user`);
  await admin.query(
    `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO ${name}_user`,
  );
  return {
    mode: 'postgresql',
    password,
    headers: {
      'x-db-mode': 'postgresql',
      'x-db-host': server.hostname,
      'x-db-port': server.port,
      'x-db-user': `${name}_user`,
      'x-db-password': password,
      'x-db-name': name,
    },
    admin: async (sql) => (await admin.query(sql)).rows as unknown[],
    drop: async () => {
      await admin.end();
      const cleanup = new pg.Client({ connectionString: POSTGRES_URL });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.query(`DROP ROLE IF EXISTS ${name}_user`);
      await cleanup.end();
    },
  };
}

/** MariaDB, reached in `mariadb` mode or, the same server, in `mysql` mode. */
export async function createMariadbDatabase(
  suite: string,
  mode: 'mariadb' | 'mysql' = 'mariadb',
): Promise<Database> {
  const { MARIADB_URL } = requireEnv('MARIADB_URL');
  const server = new URL(MARIADB_URL);
  const run = runId();
  const name = `dbproxy_${suite}_${run}`;
  // MariaDB user names have at most 32 characters: the run id keeps it unique.
  const user = `dbproxy_${run}_user`;
  const password = secret('maria');
  const admin = await mysql.createConnection({ uri: MARIADB_URL, multipleStatements: false });
  await admin.query(`CREATE DATABASE ${name}`);
  for (const host of ['%', '127.0.0.1', 'localhost']) {
    await admin.query(`CREATE USER '${user}'@'${host}' IDENTIFIED BY '${password}'`);
    await admin.query(`GRANT ALL ON ${name}.* TO '${user}'@'${host}'`);
  }
  await admin.query(`USE ${name}`);
  await admin.query(`SET time_zone = '+00:00'`);
  return {
    mode,
    password,
    headers: {
      'x-db-mode': mode,
      'x-db-host': server.hostname,
      'x-db-port': server.port,
      'x-db-user': user,
      'x-db-password': password,
      'x-db-name': name,
    },
    admin: async (sql) => (await admin.query(sql))[0] as unknown[],
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      for (const host of ['%', '127.0.0.1', 'localhost']) {
        await admin.query(`DROP USER IF EXISTS '${user}'@'${host}'`);
      }
      await admin.end();
    },
  };
}

export function createDatabase(suite: string, mode: Mode): Promise<Database> {
  return mode === 'postgresql'
    ? createPostgresDatabase(suite)
    : createMariadbDatabase(`${suite}_${mode}`, mode);
}
