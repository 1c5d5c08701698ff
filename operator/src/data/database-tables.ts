/**
 * Drops what Pelita's migrations created in an install's PostgreSQL database: a service's own
 * schema, or the tables a service created in the connection's search_path. The database itself
 * is the platform team's (Pelita never creates one) and stays.
 */
import pg from 'pg';

export interface PostgresServer {
  /** postgres:// URL as the install gives it (credentials come separately). */
  url: string;
  user?: string | undefined;
  password?: string | undefined;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export async function dropSchema(server: PostgresServer, schema: string): Promise<void> {
  await withClient(server, async (client) => {
    await client.query(`drop schema if exists ${identifier(schema)} cascade`);
  });
}

/**
 * Drops the tables, resolved through the same search_path the services' connections use (the
 * same URL and role), in one transaction: all of them or none.
 */
export async function dropTables(server: PostgresServer, tables: readonly string[]): Promise<void> {
  if (tables.length === 0) return;
  await withClient(server, async (client) => {
    await client.query(`drop table if exists ${tables.map(identifier).join(', ')} cascade`);
  });
}

function identifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not a plain SQL identifier: ${name}`);
  return `"${name}"`;
}

async function withClient(
  server: PostgresServer,
  work: (client: pg.Client) => Promise<void>,
): Promise<void> {
  const url = new URL(server.url);
  if (server.user) url.username = encodeURIComponent(server.user);
  if (server.password) url.password = encodeURIComponent(server.password);
  const client = new pg.Client({
    connectionString: url.toString(),
    connectionTimeoutMillis: 5_000,
    statement_timeout: 60_000,
  });
  client.on('error', () => undefined); // a lost connection fails the query under way
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
