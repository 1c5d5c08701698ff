import {
  authoriseHost,
  isAddressAllowed,
  hostPolicy,
  isNameAllowed,
  parseHostAllowlist,
  type HostAllowlist,
} from '../../src/connection/host-allowlist';

const list = parseHostAllowlist([
  '127.0.0.0/8',
  '::1',
  '10.1.2.3',
  'fd00::/8',
  'db.internal',
  '*.corp.example',
]) as HostAllowlist;

const resolvesTo =
  (...addresses: string[]) =>
  () =>
    Promise.resolve(addresses);

describe('parseHostAllowlist', () => {
  it('is null when empty: every host may be reached', () => {
    expect(parseHostAllowlist([])).toBeNull();
  });

  it.each(['10.0.0.0/33', '::/129', '10.0.0.0/8/1', 'not a host', 'http://x', '10.0.0.0/x'])(
    'refuses %j',
    (entry) => {
      expect(() => parseHostAllowlist([entry])).toThrow(/ALLOWED_DB_HOSTS/);
    },
  );
});

describe('matching', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['10.1.2.3', true],
    ['10.1.2.4', false],
    ['fd12::1', true],
    ['169.254.169.254', false],
    ['not-an-ip', false],
  ])('address %s → %s', (address, allowed) => {
    expect(isAddressAllowed(list, address)).toBe(allowed);
  });

  it.each([
    ['db.internal', true],
    ['DB.Internal.', true],
    ['a.corp.example', true],
    ['corp.example', false],
    ['evil-db.internal', false],
  ])('name %s → %s', (name, allowed) => {
    expect(isNameAllowed(list, name)).toBe(allowed);
  });
});

describe('authoriseHost', () => {
  it('lets any host through, unresolved, without a list', async () => {
    await expect(authoriseHost(null, 'anything.example', resolvesTo())).resolves.toBe(
      'anything.example',
    );
  });

  it('connects to a listed name as written', async () => {
    await expect(authoriseHost(list, 'db.internal', resolvesTo('8.8.8.8'))).resolves.toBe(
      'db.internal',
    );
  });

  it('connects to the checked address of a name that resolves inside the list', async () => {
    await expect(authoriseHost(list, 'localhost', resolvesTo('127.0.0.1', '::1'))).resolves.toBe(
      '127.0.0.1',
    );
  });

  it('refuses a name when any of its addresses is outside the list', async () => {
    await expect(
      authoriseHost(list, 'mixed.example', resolvesTo('127.0.0.1', '169.254.169.254')),
    ).rejects.toMatchObject({
      kind: 'host_not_allowed',
      message: expect.stringContaining('169.254.169.254'),
    });
  });

  it('refuses an address outside the list', async () => {
    await expect(authoriseHost(list, '192.168.1.1', resolvesTo())).rejects.toMatchObject({
      kind: 'host_not_allowed',
    });
  });

  it('reports a name that does not resolve as unreachable', async () => {
    const failing = () => Promise.reject(Object.assign(new Error('nope'), { code: 'ENOTFOUND' }));
    await expect(authoriseHost(list, 'nowhere.example', failing)).rejects.toMatchObject({
      kind: 'unreachable',
      message: expect.stringContaining('ENOTFOUND'),
    });
  });
});

describe('hostPolicy', () => {
  const neverResolves = () => Promise.reject(new Error('looked up'));

  it('refuses every host when the list is empty, without looking the name up', async () => {
    for (const host of ['127.0.0.1', '::1', 'db.internal']) {
      await expect(
        authoriseHost(hostPolicy(null, false), host, neverResolves),
      ).rejects.toMatchObject({
        kind: 'host_not_allowed',
        message: expect.stringContaining('ALLOWED_DB_HOSTS is empty'),
      });
    }
  });

  it('lets any host through only when allowed explicitly', async () => {
    await expect(authoriseHost(hostPolicy(null, true), 'db.internal', neverResolves)).resolves.toBe(
      'db.internal',
    );
  });

  it('keeps a given list', () => {
    expect(hostPolicy(list, false)).toBe(list);
  });
});
