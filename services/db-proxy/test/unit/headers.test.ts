import { poolKey, type ConnectionParams } from '../../src/connection/params';
import {
  ConnectionHeaders,
  ExecuteBody,
  ExecuteHeaders,
  toConnectionParams,
} from '../../src/routes/schemas';

const VALID = {
  'x-db-mode': 'postgresql',
  'x-db-host': 'db.example.com',
  'x-db-port': '5432',
  'x-db-user': 'reader',
  'x-db-password': 's3cret',
  'x-db-name': 'shop',
};

const messages = (result: { success: boolean; error?: { issues: Array<{ message: string }> } }) =>
  result.error?.issues.map((issue) => issue.message) ?? [];

describe('connection headers', () => {
  it('parse into connection parameters', () => {
    expect(toConnectionParams(ConnectionHeaders.parse({ ...VALID, other: 'ignored' }))).toEqual({
      mode: 'postgresql',
      host: 'db.example.com',
      port: 5432,
      user: 'reader',
      password: 's3cret',
      database: 'shop',
    });
  });

  it('name every missing header', () => {
    expect(messages(ConnectionHeaders.safeParse({}))).toEqual([
      'missing x-db-mode header',
      'missing x-db-host header',
      'missing x-db-port header',
      'missing x-db-user header',
      'missing x-db-password header',
      'missing x-db-name header',
    ]);
  });

  it.each([
    ['x-db-mode', 'oracle', 'x-db-mode header must be one of postgresql, mariadb, mysql'],
    ['x-db-host', '/var/run/postgresql', 'x-db-host header must be a host name or an IP address'],
    ['x-db-host', 'a b', 'x-db-host header must be a host name or an IP address'],
    ['x-db-port', '0', 'x-db-port header must be a port number (1-65535)'],
    ['x-db-port', '65536', 'x-db-port header must be a port number (1-65535)'],
    ['x-db-port', '54x', 'x-db-port header must be a port number (1-65535)'],
    ['x-db-user', '', 'x-db-user header must not be empty'],
    ['x-db-name', '', 'x-db-name header must not be empty'],
  ])('refuse %s: %j', (header, value, message) => {
    expect(messages(ConnectionHeaders.safeParse({ ...VALID, [header]: value }))).toEqual([message]);
  });

  it('accept an empty password, the three modes and IPv6 addresses', () => {
    expect(ConnectionHeaders.safeParse({ ...VALID, 'x-db-password': '' }).success).toBe(true);
    for (const mode of ['postgresql', 'mariadb', 'mysql']) {
      expect(ConnectionHeaders.safeParse({ ...VALID, 'x-db-mode': mode }).success).toBe(true);
    }
    const ipv6 = ConnectionHeaders.parse({ ...VALID, 'x-db-host': '[::1]' });
    expect(toConnectionParams(ipv6).host).toBe('::1');
  });

  it('x-db-read-only is optional and only true or false', () => {
    expect(ExecuteHeaders.parse(VALID)['x-db-read-only']).toBeUndefined();
    expect(ExecuteHeaders.parse({ ...VALID, 'x-db-read-only': 'true' })['x-db-read-only']).toBe(
      'true',
    );
    expect(messages(ExecuteHeaders.safeParse({ ...VALID, 'x-db-read-only': 'yes' }))).toEqual([
      'x-db-read-only header must be true or false',
    ]);
  });
});

describe('execute body', () => {
  it.each([undefined, {}, { query: '' }, { query: '   ' }, { query: 42 }])(
    'says the query is required for %j',
    (body) => {
      expect(messages(ExecuteBody.safeParse(body))).toEqual(['query is required']);
    },
  );
});

describe('poolKey', () => {
  const params: ConnectionParams = {
    mode: 'postgresql',
    host: 'db.example.com',
    port: 5432,
    user: 'reader',
    password: 's3cret',
    database: 'shop',
  };

  it('is the same for the same parameters, host case aside', () => {
    expect(poolKey(params)).toBe(poolKey({ ...params, host: 'DB.example.com' }));
  });

  it('differs when any parameter differs, the password included', () => {
    const variants: ConnectionParams[] = [
      { ...params, mode: 'mysql' },
      { ...params, host: 'other' },
      { ...params, port: 5433 },
      { ...params, user: 'writer' },
      { ...params, password: 's3cret!' },
      { ...params, database: 'shop2' },
    ];
    const keys = new Set([poolKey(params), ...variants.map(poolKey)]);
    expect(keys.size).toBe(variants.length + 1);
  });

  it('cannot be confused by separators inside values', () => {
    expect(poolKey({ ...params, user: 'a', password: 'b,c' })).not.toBe(
      poolKey({ ...params, user: 'a,b', password: 'c' }),
    );
  });

  it('does not contain the password', () => {
    expect(poolKey(params)).not.toContain('s3cret');
  });
});
