import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { requireEnv, serverForKey } from '../../src/index';

describe('requireEnv', () => {
  const saved = { ...process.env };
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'testenv-unit-'));
    process.env.PELITA_TESTENV_DIR = dir;
    delete process.env.REDIS_URL;
    delete process.env.OPENSEARCH_URL;
  });
  afterEach(() => {
    process.env = { ...saved };
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads the env file of PELITA_TESTENV_DIR, process.env winning', () => {
    fs.writeFileSync(
      path.join(dir, 'testenv.env'),
      'REDIS_URL=redis://file\nOPA_URL=http://file\n',
    );
    process.env.OPA_URL = 'http://env';
    expect(requireEnv('REDIS_URL', 'OPA_URL')).toEqual({
      REDIS_URL: 'redis://file',
      OPA_URL: 'http://env',
    });
  });

  it('names the server of each missing key and says how to start it', () => {
    fs.writeFileSync(path.join(dir, 'testenv.env'), 'REDIS_URL=redis://file\n');
    expect(() => requireEnv('REDIS_URL', 'OPENSEARCH_URL')).toThrow(
      /OPENSEARCH_URL \(server: opensearch\).*run `make testenv`/,
    );
  });

  it('fails without an env file', () => {
    expect(() => requireEnv('REDIS_URL')).toThrow('REDIS_URL (server: redis)');
  });
});

describe('serverForKey', () => {
  it('maps every documented key to its server', () => {
    const owners = Object.fromEntries(
      ['POSTGRES_URL', 'MARIADB_URL', 'S3_SECRET_KEY', 'OPA_BIN', 'NOPE'].map((k) => [
        k,
        serverForKey(k),
      ]),
    );
    expect(owners).toEqual({
      POSTGRES_URL: 'postgres',
      MARIADB_URL: 'mariadb',
      S3_SECRET_KEY: 'minio',
      OPA_BIN: 'opa',
      NOPE: undefined,
    });
  });
});
