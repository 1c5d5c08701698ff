/**
 * Database proxy: `POST /execute` of the built service (its own process, tracing on, logs at
 * warn) against two baselines serving the same statement over the same kind of HTTP request, so
 * every figure includes HTTP and JSON:
 * - "direct": a bare node:http server querying through a direct pool (pg.Pool / mysql2 pool,
 *   5 connections like POOL_MAX_PER_TARGET): what the proxy costs on top of a pool;
 * - "per-request": the same server opening and closing a connection for every query, the seed's
 *   behaviour (on a bare server, faster than the seed's express one: a conservative baseline).
 * Both baselines are this file run as a child process (`node db-proxy.bench.js serve ...`), and
 * the load generator is a process of its own, so no two of them share an event loop. Every path
 * is warmed up, then the paths alternate ROUNDS times; each ratio is the median of the per-round
 * ratios: on a shared machine a single run mostly measures the neighbours.
 * A second proxy with SESSION_RESET=always (a full session reset after every request, the
 * behaviour before the reset was skipped for requests that change nothing) runs beside it, so
 * the reset's cost is measured in the same rounds.
 * DB_PROXY_BENCH_CONNECTIONS (default 16): comma-separated concurrency levels; levels other
 * than 16 measure `SELECT 1` only.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { requireEnv } from '@pelita/testenv';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { measureAlternating, type MeasuredPath } from './alternate';
import type { LoadOptions } from './load';
import { startProcess, startService } from './process';
import { report, table } from './report';

const CONNECTIONS = (process.env.DB_PROXY_BENCH_CONNECTIONS ?? '16')
  .split(',')
  .map((level) => Number(level.trim()));
const MAIN_CONNECTIONS = 16;
const DURATION_SECONDS = 5;
const WARM_UP_SECONDS = 1;
const ROUNDS = 3;
const POOL_SIZE = 5;
const DATABASE = 'pelita_bench_dbproxy';
const ROWS = 1000;
const SERVICE_MAIN = join(__dirname, '..', '..', '..', 'services', 'db-proxy', 'dist', 'main.js');

type Engine = 'postgresql' | 'mariadb';
type Baseline = 'direct' | 'per-request';

const QUERIES = {
  'SELECT 1': 'SELECT 1 AS one',
  [`${ROWS}-row select`]: 'SELECT id, name, amount, created_at FROM bench_rows ORDER BY id',
};

export async function run(): Promise<void> {
  const urls = { postgresql: databaseUrl('postgresql'), mariadb: databaseUrl('mariadb') };
  await prepareDatabases();
  // The service logs at its default level (info); its output goes to /dev/null.
  // The test servers are on loopback: the only hosts db-proxy is given.
  const hosts = { ALLOWED_DB_HOSTS: '127.0.0.1' };
  const service = await startService(SERVICE_MAIN, { env: hosts });
  const alwaysReset = await startService(SERVICE_MAIN, {
    env: { ...hosts, SESSION_RESET: 'always' },
  });
  try {
    report(
      `${CONNECTIONS.join(', ')} connections, ${DURATION_SECONDS} s per run, median of ${ROUNDS} alternating rounds; ` +
        `pool of ${POOL_SIZE} per target on both pooled sides; ${cpus().length} CPUs, ` +
        `load average ${loadavg()[0]?.toFixed(1)} at start`,
    );
    const figures: Array<Record<string, string | number>> = [];
    const ratios: Array<Record<string, string | number>> = [];
    for (const engine of ['postgresql', 'mariadb'] as const) {
      const direct = await startProcess(__filename, ['serve', 'direct', engine]);
      const perRequest = await startProcess(__filename, ['serve', 'per-request', engine]);
      try {
        for (const [label, query, connections] of CONNECTIONS.flatMap((connections) =>
          Object.entries(QUERIES)
            .filter(([name]) => connections === MAIN_CONNECTIONS || name === 'SELECT 1')
            .map((entry) => [...entry, connections] as const),
        )) {
          const body = JSON.stringify({ query });
          const paths: MeasuredPath[] = [
            {
              name: 'direct pool',
              load: executeLoad(`http://127.0.0.1:${direct.port}`, {}, body),
              pid: direct.child.pid,
            },
            {
              name: 'pelita /execute',
              load: executeLoad(service.url, connectionHeaders(urls[engine]), body),
              baseline: 'direct pool',
              pid: service.child.pid,
            },
            {
              name: 'pelita, SESSION_RESET=always',
              load: executeLoad(alwaysReset.url, connectionHeaders(urls[engine]), body),
              baseline: 'direct pool',
              pid: alwaysReset.child.pid,
            },
            {
              name: 'per-request (seed)',
              load: executeLoad(`http://127.0.0.1:${perRequest.port}`, {}, body),
              pid: perRequest.child.pid,
            },
          ];
          const results = await measureAlternating(paths, {
            connections,
            durationSeconds: DURATION_SECONDS,
            warmUpSeconds: WARM_UP_SECONDS,
            rounds: ROUNDS,
          });
          for (const result of results) {
            figures.push({
              engine,
              statement: label,
              c: connections,
              server: result.name,
              'req/s': Math.round(result.requestsPerSecond),
              'p50 ms': result.p50Ms,
              'p99 ms': result.p99Ms,
              'CPU us/req': Math.round(result.cpuMicrosPerRequest ?? Number.NaN),
            });
          }
          const [pooled, pelita, always, seed] = results;
          if (!pooled || !pelita || !always || !seed) {
            throw new Error('db-proxy bench: a path is missing');
          }
          ratios.push({
            engine,
            statement: label,
            c: connections,
            'pelita/direct': (pelita.ratio ?? Number.NaN).toFixed(2),
            rounds: pelita.roundRatios.map((r) => r.toFixed(2)).join(' '),
            'reset always/direct': (always.ratio ?? Number.NaN).toFixed(2),
            'rounds ': always.roundRatios.map((r) => r.toFixed(2)).join(' '),
            target: label === 'SELECT 1' ? '>= 0.50' : '>= 0.90',
            'pelita/per-request': (pelita.requestsPerSecond / seed.requestsPerSecond).toFixed(2),
            'target ': engine === 'postgresql' ? '>= 5' : '-',
          });
        }
      } finally {
        await direct.stop();
        await perRequest.stop();
      }
    }
    table(figures);
    report('');
    table(ratios);
  } finally {
    await service.stop();
    await alwaysReset.stop();
    await dropDatabases();
  }
}

function databaseUrl(engine: Engine): URL {
  const { POSTGRES_URL, MARIADB_URL } = requireEnv('POSTGRES_URL', 'MARIADB_URL');
  const url = new URL(engine === 'postgresql' ? POSTGRES_URL : MARIADB_URL);
  url.pathname = `/${DATABASE}`;
  return url;
}

/** A database of the benchmark's own with a table of ROWS rows, on both servers. */
async function prepareDatabases(): Promise<void> {
  const { POSTGRES_URL, MARIADB_URL } = requireEnv('POSTGRES_URL', 'MARIADB_URL');
  const root = new pg.Client({ connectionString: POSTGRES_URL });
  await root.connect();
  await root.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await root.query(`CREATE DATABASE ${DATABASE}`);
  await root.end();
  const postgres = new pg.Client({ connectionString: databaseUrl('postgresql').toString() });
  await postgres.connect();
  await postgres.query(
    'CREATE TABLE bench_rows (id int PRIMARY KEY, name text, amount numeric(12,2), created_at timestamptz)',
  );
  await postgres.query(
    `INSERT INTO bench_rows SELECT n, 'row ' || n, n * 1.25, '2024-01-01'::timestamptz + n * interval '1 minute'
     FROM generate_series(1, ${ROWS}) AS n`,
  );
  await postgres.end();

  const maria = await mysql.createConnection({ uri: MARIADB_URL });
  await maria.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
  await maria.query(`CREATE DATABASE ${DATABASE}`);
  await maria.query(`USE ${DATABASE}`);
  await maria.query(
    'CREATE TABLE bench_rows (id int PRIMARY KEY, name varchar(40), amount decimal(12,2), created_at timestamp)',
  );
  await maria.query(
    `INSERT INTO bench_rows
     WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${ROWS})
     SELECT n, CONCAT('row ', n), n * 1.25, TIMESTAMP('2024-01-01') + INTERVAL n MINUTE FROM s`,
  );
  await maria.end();
}

async function dropDatabases(): Promise<void> {
  const { POSTGRES_URL, MARIADB_URL } = requireEnv('POSTGRES_URL', 'MARIADB_URL');
  const root = new pg.Client({ connectionString: POSTGRES_URL });
  await root.connect();
  await root.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await root.end();
  const maria = await mysql.createConnection({ uri: MARIADB_URL });
  await maria.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
  await maria.end();
}

function connectionHeaders(url: URL): Record<string, string> {
  return {
    'x-db-mode': url.protocol === 'postgres:' ? 'postgresql' : 'mariadb',
    'x-db-host': url.hostname,
    'x-db-port': url.port,
    'x-db-user': decodeURIComponent(url.username),
    'x-db-password': decodeURIComponent(url.password),
    'x-db-name': url.pathname.slice(1),
  };
}

function executeLoad(base: string, headers: Record<string, string>, body: string): LoadOptions {
  return {
    url: `${base}/execute`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  };
}

/** Runs one statement and returns its rows, the baseline way. */
type RunQuery = (sql: string) => Promise<unknown[]>;

function baselineRunner(baseline: Baseline, engine: Engine): RunQuery {
  const url = databaseUrl(engine).toString();
  if (engine === 'postgresql') {
    if (baseline === 'direct') {
      const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
      return async (sql) => (await pool.query(sql)).rows as unknown[];
    }
    return async (sql) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql)).rows as unknown[];
      } finally {
        await client.end();
      }
    };
  }
  if (baseline === 'direct') {
    const pool = mysql.createPool({ uri: url, connectionLimit: POOL_SIZE });
    return async (sql) => (await pool.query(sql))[0] as unknown[];
  }
  return async (sql) => {
    const connection = await mysql.createConnection({ uri: url });
    try {
      return (await connection.query(sql))[0] as unknown[];
    } finally {
      await connection.end();
    }
  };
}

/** Child-process mode: a bare HTTP server answering `POST /execute` like the proxy does. */
function serveBaseline(baseline: Baseline, engine: Engine): void {
  const runQuery = baselineRunner(baseline, engine);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { query } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { query: string };
      runQuery(query).then(
        (rows) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ result: rows }));
        },
        (err: unknown) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: String(err) }));
        },
      );
    });
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  });
  process.once('SIGTERM', () => process.exit(0));
}

if (require.main === module && process.argv[2] === 'serve') {
  serveBaseline(process.argv[3] as Baseline, process.argv[4] as Engine);
}
