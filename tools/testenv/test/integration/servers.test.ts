// Every server answers at the address the env file gives (loaded by jest-env.ts), with real clients.
import { randomBytes } from 'node:crypto';
import { run } from '../../src/cli/proc';
import { redisPing } from '../../src/cli/probes';
import { requireEnv } from '../../src/index';

async function query(command: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const { code, stdout, stderr } = await run(command, args, { env, timeoutMs: 10_000 });
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  return stdout.trim();
}

describe('test servers', () => {
  it('PostgreSQL: pelita is a superuser', async () => {
    const { POSTGRES_URL } = requireEnv('POSTGRES_URL');
    const sql = 'SELECT rolsuper FROM pg_roles WHERE rolname = current_user';
    await expect(query('psql', ['-X', '-tA', POSTGRES_URL, '-c', sql])).resolves.toBe('t');
  });

  it('PgBouncer: pools in transaction mode and reaches PostgreSQL', async () => {
    const { PGBOUNCER_URL } = requireEnv('PGBOUNCER_URL');
    // The pooler's own console says which mode it pools in.
    const admin = new URL(PGBOUNCER_URL);
    admin.pathname = '/pgbouncer';
    const mode = await query('psql', ['-X', '-tA', admin.toString(), '-c', 'SHOW CONFIG']);
    expect(mode).toMatch(/^pool_mode\|transaction\|/m);
    await expect(query('psql', ['-X', '-tA', PGBOUNCER_URL, '-c', 'SELECT 1'])).resolves.toBe('1');
  });

  it('MariaDB: pelita may create databases', async () => {
    const url = new URL(requireEnv('MARIADB_URL').MARIADB_URL);
    // A name of its own: another checkout may probe the same server at the same time.
    const probe = `testenv_probe_${randomBytes(4).toString('hex')}`;
    const sql = `CREATE DATABASE ${probe}; DROP DATABASE ${probe}; SELECT 1`;
    const args = ['--no-defaults', '--protocol=TCP', `-h${url.hostname}`, `-P${url.port}`];
    args.push(`-u${url.username}`, `-p${url.password}`, '-N', '-B', '-e', sql);
    await expect(query('mariadb', args)).resolves.toBe('1');
  });

  it('Redis: PING', async () => {
    const url = new URL(requireEnv('REDIS_URL').REDIS_URL);
    await expect(redisPing(Number(url.port))).resolves.toBe(true);
  });

  it('OpenSearch: the single node serves (green, or yellow once tests made replicated indices)', async () => {
    const { OPENSEARCH_URL } = requireEnv('OPENSEARCH_URL');
    const response = await fetch(`${OPENSEARCH_URL}/_cluster/health`);
    const health = (await response.json()) as { status: string; number_of_nodes: number };
    expect(['green', 'yellow']).toContain(health.status);
    expect(health.number_of_nodes).toBe(1);
  });

  it('OpenSearch: the k-NN plugin answers a lucene HNSW query with the nearest vector first', async () => {
    const { OPENSEARCH_URL } = requireEnv('OPENSEARCH_URL');
    const index = `${OPENSEARCH_URL}/testenv-knn-${process.pid}`;
    const json = (method: string, url: string, body: unknown) =>
      fetch(url, {
        method,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const created = await json('PUT', index, {
      settings: { index: { knn: true } },
      mappings: {
        properties: {
          v: {
            type: 'knn_vector',
            dimension: 3,
            method: { name: 'hnsw', engine: 'lucene', space_type: 'cosinesimil' },
          },
        },
      },
    });
    try {
      expect(created.status).toBe(200);
      const vectors = { a: [1, 0, 0], b: [0, 1, 0], c: [0, 0, 1] };
      for (const [id, v] of Object.entries(vectors)) {
        await json('PUT', `${index}/_doc/${id}?refresh=true`, { v });
      }
      const found = await json('POST', `${index}/_search`, {
        query: { knn: { v: { vector: [0.1, 0.9, 0.2], k: 2 } } },
      });
      const body = (await found.json()) as { hits: { hits: Array<{ _id: string }> } };
      expect(body.hits.hits[0]?._id).toBe('b');
    } finally {
      await fetch(index, { method: 'DELETE' });
    }
  });

  it('MinIO: ready, and rejects anonymous listing', async () => {
    const { S3_ENDPOINT } = requireEnv('S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY');
    expect((await fetch(`${S3_ENDPOINT}/minio/health/ready`)).status).toBe(200);
    expect((await fetch(`${S3_ENDPOINT}/`)).status).toBe(403);
  });

  it('OPA: serves, and OPA_BIN runs', async () => {
    const { OPA_URL, OPA_BIN } = requireEnv('OPA_URL', 'OPA_BIN');
    expect((await fetch(`${OPA_URL}/health`)).status).toBe(200);
    await expect(query(OPA_BIN, ['version'])).resolves.toMatch(/^Version: 1\./);
  });

  it('SMTP: a message sent over SMTP lands in the Maildir', async () => {
    const { SMTP_HOST, SMTP_PORT, SMTP_MAILDIR } = requireEnv(
      'SMTP_HOST',
      'SMTP_PORT',
      'SMTP_MAILDIR',
    );
    const marker = `probe-${Date.now()}`;
    const script = [
      'import smtplib, sys',
      'from email.message import EmailMessage',
      'm = EmailMessage(); m["From"] = "a@pelita.test"; m["To"] = "b@pelita.test"',
      'm["Subject"] = sys.argv[3]; m.set_content("hello")',
      'smtplib.SMTP(sys.argv[1], int(sys.argv[2])).send_message(m)',
    ].join('\n');
    await query('python3', ['-c', script, SMTP_HOST, SMTP_PORT, marker]);
    const { readdirSync, readFileSync } = await import('node:fs');
    const dir = `${SMTP_MAILDIR}/new`;
    const found = readdirSync(dir).some((f) =>
      readFileSync(`${dir}/${f}`, 'utf8').includes(marker),
    );
    expect(found).toBe(true);
  });
});
