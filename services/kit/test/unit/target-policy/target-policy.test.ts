import type { LookupAddress } from 'node:dns';
import { z } from 'zod';
import { ConfigError, loadConfig } from '../../../src/config';
import {
  allowedTargetsSetting,
  parseAllowedTargets,
} from '../../../src/target-policy/allowed-targets';
import { createGuardedLookup } from '../../../src/target-policy/guarded-lookup';
import { TargetForbiddenError } from '../../../src/target-policy/target-forbidden-error';
import { createTargetPolicy } from '../../../src/target-policy/target-policy';

const policy = (...entries: string[]) => createTargetPolicy(parseAllowedTargets(entries));

describe('parseAllowedTargets', () => {
  it('separates ranges from host names', () => {
    const allowed = parseAllowedTargets(['127.0.0.0/8', '::1', 'API.Internal.', 'db_1']);
    expect(allowed.ranges).toHaveLength(2);
    expect([...allowed.names]).toEqual(['api.internal', 'db_1']);
  });

  it('names the entry it cannot read', () => {
    expect(() => parseAllowedTargets(['10.0.0.0/33'])).toThrow('"10.0.0.0/33"');
    expect(() => parseAllowedTargets(['http://x'])).toThrow('"http://x"');
    expect(() => parseAllowedTargets(['a b'])).toThrow('"a b"');
  });
});

describe('allowedTargetsSetting', () => {
  const schema = z.object({ ALLOWED_TARGETS: allowedTargetsSetting });

  it('reads a comma list, and nothing when unset or empty', () => {
    const allowed = loadConfig(schema, { ALLOWED_TARGETS: '127.0.0.0/8, ::1,api.internal' });
    expect(allowed.ALLOWED_TARGETS.ranges).toHaveLength(2);
    expect([...allowed.ALLOWED_TARGETS.names]).toEqual(['api.internal']);
    for (const env of [{}, { ALLOWED_TARGETS: '' }]) {
      const empty = loadConfig(schema, env).ALLOWED_TARGETS;
      expect(empty.ranges).toEqual([]);
      expect(empty.names.size).toBe(0);
    }
  });

  it('stops start-up on a bad entry, naming the setting and the entry', () => {
    const load = () => loadConfig(schema, { ALLOWED_TARGETS: '10.0.0.0/8,10.0.0.0/99' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/ALLOWED_TARGETS: "10.0.0.0\/99" is neither/);
  });
});

describe('target policy', () => {
  it('allows public addresses and refuses the others, naming why', () => {
    const open = policy();
    expect(() => open.checkAddress('example.com', '93.184.215.14')).not.toThrow();
    expect(() => open.checkAddress('example.com', '10.0.0.5')).toThrow(TargetForbiddenError);
    expect(() => open.checkAddress('evil.test', '127.0.0.1')).toThrow(
      'Target evil.test (127.0.0.1) is a loopback address',
    );
  });

  it('refuses with a 403 target_forbidden that says which target and why', () => {
    let refusal: unknown;
    try {
      policy().checkAddress('metadata.test', '169.254.169.254');
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toMatchObject({
      status: 403,
      code: 'target_forbidden',
      target: 'metadata.test (169.254.169.254)',
      kind: 'link-local',
    });
  });

  it('allows exactly the listed ranges, also in their IPv4-mapped form', () => {
    const allowed = policy('127.0.0.1/32');
    expect(() => allowed.checkAddress('127.0.0.1', '127.0.0.1')).not.toThrow();
    expect(() => allowed.checkAddress('x', '::ffff:127.0.0.1')).not.toThrow();
    expect(() => allowed.checkAddress('127.0.0.2', '127.0.0.2')).toThrow(TargetForbiddenError);
    expect(() => allowed.checkAddress('::1', '::1')).toThrow(TargetForbiddenError);
  });

  it('allows any address of a listed host name, and only of that name', () => {
    const allowed = policy('api.internal');
    expect(() => allowed.checkAddress('API.internal.', '10.1.2.3')).not.toThrow();
    expect(() => allowed.checkAddress('other.internal', '10.1.2.3')).toThrow(TargetForbiddenError);
  });

  it('checks URLs with an IP literal host and leaves names to the lookup', () => {
    const open = policy();
    expect(() => open.checkUrl(new URL('http://[::ffff:127.0.0.1]:8080/'))).toThrow(
      TargetForbiddenError,
    );
    expect(() => open.checkUrl(new URL('http://0x7f.1/'))).toThrow(TargetForbiddenError);
    expect(() => open.checkUrl(new URL('http://169.254.169.254/latest'))).toThrow('link-local');
    expect(() => open.checkUrl(new URL('http://localhost/'))).not.toThrow();
    expect(() => open.checkUrl(new URL('https://8.8.8.8/'))).not.toThrow();
  });
});

describe('guarded lookup', () => {
  /** A resolver answering from a table, like a DNS server under an attacker's control. */
  const resolverOf =
    (answers: Record<string, LookupAddress[]>) =>
    (
      hostname: string,
      _options: unknown,
      callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
    ) =>
      callback(null, answers[hostname] ?? []);

  const lookupWith = (answers: Record<string, LookupAddress[]>, ...allowed: string[]) =>
    createGuardedLookup(policy(...allowed), resolverOf(answers));

  const run = (lookup: ReturnType<typeof lookupWith>, hostname: string, all: boolean) =>
    new Promise<{ err: unknown; address: unknown; family: unknown }>((resolve) =>
      lookup(hostname, { all }, (err, address, family) => resolve({ err, address, family })),
    );

  it('answers public addresses in the form asked for', async () => {
    const lookup = lookupWith({ 'api.example': [{ address: '93.184.215.14', family: 4 }] });
    expect(await run(lookup, 'api.example', false)).toEqual({
      err: null,
      address: '93.184.215.14',
      family: 4,
    });
    expect((await run(lookup, 'api.example', true)).address).toEqual([
      { address: '93.184.215.14', family: 4 },
    ]);
  });

  it('refuses a name when any of its addresses is private (rebinding, mixed answers)', async () => {
    const lookup = lookupWith({
      rebound: [{ address: '169.254.169.254', family: 4 }],
      mixed: [
        { address: '93.184.215.14', family: 4 },
        { address: '::1', family: 6 },
      ],
    });
    expect((await run(lookup, 'rebound', false)).err).toBeInstanceOf(TargetForbiddenError);
    expect((await run(lookup, 'mixed', true)).err).toBeInstanceOf(TargetForbiddenError);
  });

  it('lets listed names and ranges through', async () => {
    const answers = { 'db.internal': [{ address: '10.0.0.7', family: 4 }] };
    expect((await run(lookupWith(answers, 'db.internal'), 'db.internal', false)).err).toBeNull();
    expect((await run(lookupWith(answers, '10.0.0.0/24'), 'db.internal', false)).err).toBeNull();
  });

  it('reports an empty answer as not found', async () => {
    const { err } = await run(lookupWith({}), 'nowhere', false);
    expect((err as NodeJS.ErrnoException).code).toBe('ENOTFOUND');
  });
});
