/** The connection parameters a request carries in its x-db-* headers, and the pool key they make. */
import { createHash } from 'node:crypto';

export const MODES = ['postgresql', 'mariadb', 'mysql'] as const;
export type Mode = (typeof MODES)[number];

/** Both MariaDB and MySQL speak the MySQL protocol and go through mysql2. */
export type EngineName = 'postgresql' | 'mysql';

export interface ConnectionParams {
  mode: Mode;
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

export function engineOf(mode: Mode): EngineName {
  return mode === 'postgresql' ? 'postgresql' : 'mysql';
}

/**
 * Connections are shared only between requests with exactly the same parameters, the password
 * included. The key is a hash so the password never sits in a map key or a log line.
 */
export function poolKey(params: ConnectionParams): string {
  const { mode, host, port, user, password, database } = params;
  return createHash('sha256')
    .update(JSON.stringify([mode, host.toLowerCase(), port, user, password, database]))
    .digest('base64url');
}

/** Where a connection goes: the parameters and the (checked) address to connect to. */
export interface Target {
  params: ConnectionParams;
  address: string;
}
