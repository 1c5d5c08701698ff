/**
 * The license service as its tests run it: a fresh database on the test PostgreSQL, the service
 * in-process (as main.ts would run it) with a first account, its log lines captured, and helpers
 * to make records and accounts directly in the database.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger, serveInProcess, type PasswordHasher, type RunningServer } from '@pelita/kit';
import { testPasswords } from '@pelita/kit/testing';
import { createLicenseService, settingsSchema } from '@pelita/license-service';
import { requireEnv } from '@pelita/testenv';
import pg from 'pg';

class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
}

export const ADMIN = {
  email: 'root@vendor.test',
  password: 'root-password-123',
  name: 'Root Admin',
};

export interface LicensePlatform {
  url: string;
  db: pg.Pool;
  logs: LogCapture;
  /**
   * A client with licenses, straight into the database; returns its id. The `license-api`
   * accounts made so far are bound to it, as an administrator binds a tenant's account to the
   * tenant's client.
   */
  addClient(client?: Partial<ClientSeed>, licenses?: Array<Partial<LicenseSeed>>): Promise<string>;
  /**
   * An account with the role named (its password hashed by the service's own rules), bound to
   * the clients given for the license API.
   */
  addAccount(email: string, password: string, role: string, clients?: string[]): Promise<void>;
  stop(): Promise<void>;
}

interface ClientSeed {
  name: string;
  company_name: string;
  is_active: boolean;
  max_user: number | null;
}
interface LicenseSeed {
  license_name: string;
  status: boolean;
  expired_date: Date | null;
  activated_date: Date | null;
}

export async function startLicensePlatform(
  env: Record<string, string> = {},
  options: {
    /**
     * How the service (and `addAccount`) hashes passwords: scrypt at a test cost (N = 2^10) by
     * default, as every account and every check would otherwise cost 128 MiB and 0.4 s of CPU.
     * Tests of the hashing itself (its cost, its cap) pass the production `scryptPasswords()`.
     */
    passwords?: PasswordHasher;
  } = {},
): Promise<LicensePlatform> {
  const passwords = options.passwords ?? testPasswords();
  const { POSTGRES_URL } = requireEnv('POSTGRES_URL');
  const name = `license_service_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;

  const logs = new LogCapture();
  const logger = createLogger({ name: 'license-service', level: 'info', destination: logs });
  const settings = settingsSchema.parse({
    DATABASE_URL: url.toString(),
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    ADMIN_NAME: ADMIN.name,
    ...env,
  });
  const running: RunningServer = await serveInProcess(
    createLicenseService(settings, logger, { passwords }),
    logger,
  );
  const db = new pg.Pool({ connectionString: url.toString(), max: 2 });

  return {
    url: running.url,
    db,
    logs,
    async addClient(client = {}, licenses = [{}]) {
      const id = randomUUID();
      await db.query(
        `insert into clients (id, name, company_name, is_active, max_user) values ($1, $2, $3, $4, $5)`,
        [
          id,
          client.name ?? 'Client',
          client.company_name ?? 'PT Client',
          client.is_active ?? true,
          client.max_user ?? null,
        ],
      );
      for (const [i, license] of licenses.entries()) {
        await db.query(
          `insert into licenses (id, client_id, license_name, status, expired_date, activated_date)
           values ($1, $2, $3, $4, $5, $6)`,
          [
            randomUUID(),
            id,
            license.license_name ?? `License ${i + 1}`,
            license.status ?? true,
            license.expired_date === undefined
              ? new Date(Date.now() + 30 * 86_400_000)
              : license.expired_date,
            license.activated_date ?? new Date(),
          ],
        );
      }
      await db.query(
        `update admin_users set api_client_ids = array_append(api_client_ids, $1)
         where role_id = (select id from roles where name = 'license-api')`,
        [id],
      );
      return id;
    },
    async addAccount(email, password, role, clients = []) {
      await db.query(
        `insert into admin_users (id, name, email, password_hash, role_id, api_client_ids)
         values ($1, $2, $3, $4, (select id from roles where name = $5), $6)`,
        [randomUUID(), email, email, await passwords.hash(password), role, clients],
      );
    },
    async stop() {
      await running.stop();
      await db.end();
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

export const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
