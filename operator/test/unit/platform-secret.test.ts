/**
 * The platform Secret: generated when absent and never replaced, and each container given only
 * the keys it needs (the user service's signing key used to reach every pod, proxies included).
 */
import { createSign, createVerify } from 'node:crypto';
import type { V1Container, V1Secret } from '@kubernetes/client-node';
import { ApiException } from '@kubernetes/client-node';
import { ensurePlatformSecret, missingPlatformKeys } from '../../src/controller/platform-secret';
import { SERVICE_NAMES, type ServiceName } from '../../src/crd/platform-install';
import { generatePlatformKeys } from '../../src/platform-keys';
import { renderConfigMap, renderDesired, renderWorkload } from '../../src/render';
import { platformSecretKeys } from '../../src/service-catalog';
import { allEnabled, makeInstall } from './fixtures';

const install = makeInstall({ services: allEnabled });

/** `SETTING -> key` of every env entry that reads the platform Secret, per container. */
function platformRefs(service: ServiceName): Record<string, Record<string, string>> {
  const containers = renderWorkload(install, service)?.spec?.template.spec?.containers ?? [];
  return Object.fromEntries(
    containers.map((container: V1Container) => [
      container.name,
      Object.fromEntries(
        (container.env ?? [])
          .filter((e) => e.valueFrom?.secretKeyRef?.name === 'acme-platform')
          .map((e) => [e.name, e.valueFrom?.secretKeyRef?.key ?? '']),
      ),
    ]),
  );
}

describe('keys of the platform Secret per container', () => {
  const expected: Record<ServiceName, Record<string, Record<string, string>>> = {
    'http-proxy': { 'http-proxy': { PROXY_SERVICE_TOKEN: 'http-proxy-token' } },
    'db-proxy': { 'db-proxy': { PROXY_SERVICE_TOKEN: 'db-proxy-token' } },
    'user-service': {
      'user-service': {
        OPEN_API_TOKEN: 'user-service-token',
        POLICY_SYNC_TOKEN: 'policy-sync-token',
        CORE_BACKEND_TOKEN: 'core-backend-token',
        JWT_PRIVATE_KEY: 'jwt-private-key',
      },
    },
    'policy-sync': {
      'policy-sync': {
        SYNC_SERVICE_TOKEN: 'policy-sync-token',
        USER_SERVICE_TOKEN: 'user-service-token',
        OPA_TOKEN: 'opa-token',
      },
      opa: { OPA_TOKEN: 'opa-token' },
    },
    'license-service': { 'license-service': {} },
    'core-backend': {
      'core-backend': {
        SERVICE_TOKEN: 'core-backend-token',
        HTTP_PROXY_TOKEN: 'http-proxy-token',
        DB_PROXY_TOKEN: 'db-proxy-token',
        ENCRYPTION_KEY: 'encryption-key',
      },
    },
    'ocr-service': { 'ocr-service': {} },
    'ocr-worker': { 'ocr-worker': {} },
    'office-converter': { 'office-converter': {} },
    'ocr-engine': { 'ocr-engine': {} },
    summarizer: { summarizer: {} },
  };

  it.each(SERVICE_NAMES)('%s gets exactly its keys, one by one', (service) => {
    expect(platformRefs(service)).toEqual(expected[service]);
  });

  it('gives the signing key to the user service alone', () => {
    const holders = SERVICE_NAMES.filter((s) =>
      Object.values(platformRefs(s)).some((refs) =>
        Object.values(refs).includes('jwt-private-key'),
      ),
    );
    expect(holders).toEqual(['user-service']);
  });

  it('gives a token only to the service that checks it and to its callers', () => {
    const core = makeInstall({ services: { ...allEnabled, 'core-backend': { enabled: false } } });
    const user = renderWorkload(core, 'user-service')?.spec?.template.spec?.containers[0];
    expect(user?.env?.map((e) => e.name)).not.toContain('CORE_BACKEND_TOKEN');
    expect(user?.env?.map((e) => e.name)).toContain('POLICY_SYNC_TOKEN');
  });

  it('names the Secret after spec.platformSecretRef when set', () => {
    const named = makeInstall({ platformSecretRef: { name: 'acme-keys' } });
    const proxy = renderWorkload(named, 'http-proxy')?.spec?.template.spec?.containers[0];
    expect(proxy?.env).toContainEqual({
      name: 'PROXY_SERVICE_TOKEN',
      valueFrom: { secretKeyRef: { name: 'acme-keys', key: 'http-proxy-token' } },
    });
  });

  it('refers only to keys the operator generates', () => {
    const desired = renderDesired({ install, policies: {} });
    expect(missingPlatformKeys(desired, 'acme-platform', new Set(platformSecretKeys()))).toEqual(
      [],
    );
  });
});

describe('the public key and the bootstrap administrator', () => {
  it('puts the JWT public key in the ConfigMaps of the services that verify tokens', () => {
    const keyed = makeInstall({ services: allEnabled });
    keyed.platformKeys = { jwtPublicKey: 'PUBLIC PEM' };
    const holders = SERVICE_NAMES.filter(
      (s) => renderConfigMap(keyed, s)?.data?.JWT_PUBLIC_KEY === 'PUBLIC PEM',
    );
    expect(holders).toEqual(['user-service', 'core-backend']);
    expect(renderConfigMap(install, 'core-backend')?.data?.JWT_PUBLIC_KEY).toBeUndefined();
  });

  it('gives the user service its first administrator from spec.bootstrapAdmin.secretRef', () => {
    const admin = makeInstall({ bootstrapAdmin: { secretRef: { name: 'acme-admin' } } });
    const env = renderWorkload(admin, 'user-service')?.spec?.template.spec?.containers[0]?.env;
    expect(env).toEqual(
      expect.arrayContaining([
        {
          name: 'FIRST_ADMIN_EMAIL',
          valueFrom: { secretKeyRef: { name: 'acme-admin', key: 'email' } },
        },
        {
          name: 'FIRST_ADMIN_PASSWORD',
          valueFrom: { secretKeyRef: { name: 'acme-admin', key: 'password' } },
        },
      ]),
    );
    const none = renderWorkload(install, 'user-service')?.spec?.template.spec?.containers[0]?.env;
    expect(none?.map((e) => e.name)).not.toContain('FIRST_ADMIN_EMAIL');
  });
});

describe('a replaced or edited platform Secret', () => {
  const hashOf = (version: string | undefined, service: ServiceName) => {
    const copy = makeInstall({ services: allEnabled });
    copy.platformKeys = { version };
    return renderWorkload(copy, service)?.spec?.template.metadata?.annotations?.[
      'pelita.io/config-hash'
    ];
  };

  it('rolls the pods that read a key of it, and only those', () => {
    // Otherwise some pods would keep old tokens while their peers start with new ones.
    for (const service of ['http-proxy', 'user-service', 'policy-sync', 'core-backend'] as const) {
      expect(hashOf('101', service)).not.toBe(hashOf('102', service));
    }
    for (const service of ['summarizer', 'ocr-worker', 'office-converter'] as const) {
      expect(hashOf('101', service)).toBe(hashOf('102', service));
      expect(hashOf('101', service)).toBe(hashOf(undefined, service));
    }
  });
});

describe('ALLOWED_DB_HOSTS', () => {
  it('is rendered from spec.databases.allowedHosts when set, and only then', () => {
    const declared = makeInstall({ databases: { allowedHosts: ['10.0.0.0/8', 'db.internal'] } });
    expect(renderConfigMap(declared, 'db-proxy')?.data?.ALLOWED_DB_HOSTS).toBe(
      '10.0.0.0/8,db.internal',
    );
    expect(renderConfigMap(install, 'db-proxy')?.data).not.toHaveProperty('ALLOWED_DB_HOSTS');
  });

  it('refuses an entry with a comma (it would smuggle in a second entry)', () => {
    expect(() => makeInstall({ databases: { allowedHosts: ['a,0.0.0.0/0'] } })).toThrow(
      /without commas/,
    );
  });
});

describe('generatePlatformKeys', () => {
  it('makes every key, each token different and 256 bits, and a matching P-256 pair', () => {
    const keys = generatePlatformKeys();
    expect(Object.keys(keys).sort()).toEqual([...platformSecretKeys()].sort());
    const tokens = Object.entries(keys).filter(([k]) => k.endsWith('-token'));
    expect(new Set(tokens.map(([, v]) => v)).size).toBe(tokens.length);
    for (const [, value] of tokens) expect(value).toMatch(/^[0-9a-f]{64}$/);
    expect(Buffer.from(keys['encryption-key'] ?? '', 'base64')).toHaveLength(32);
    const signature = createSign('SHA256')
      .update('x')
      .sign(keys['jwt-private-key'] ?? '');
    expect(
      createVerify('SHA256')
        .update('x')
        .verify(keys['jwt-public-key'] ?? '', signature),
    ).toBe(true);
    expect(generatePlatformKeys()['opa-token']).not.toBe(keys['opa-token']);
  });
});

/** The API's answer to a create: `stringData` stored base64-encoded in `data`. */
function stored(secret: V1Secret): V1Secret {
  const data = Object.fromEntries(
    Object.entries(secret.stringData ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
  );
  return { ...secret, stringData: undefined, data };
}

function client(existing?: V1Secret, raceWith?: V1Secret) {
  const created: V1Secret[] = [];
  let current = existing;
  return {
    created,
    readSecret: () => Promise.resolve(current),
    createSecret: (_ns: string, secret: V1Secret) => {
      if (raceWith) {
        current = raceWith;
        return Promise.reject(new ApiException(409, 'AlreadyExists', '{}', {}));
      }
      created.push(secret);
      return Promise.resolve(stored(secret));
    },
  };
}

describe('ensurePlatformSecret', () => {
  it('creates an owned Secret with every generated key when none exists', async () => {
    const api = client();
    const keys = generatePlatformKeys();
    const state = await ensurePlatformSecret(api, install, () => keys);
    expect(api.created).toHaveLength(1);
    const [secret] = api.created;
    expect(secret?.metadata?.name).toBe('acme-platform');
    expect(secret?.metadata?.namespace).toBe('tenant-acme');
    expect(secret?.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'PlatformInstall', uid: 'uid-1234', controller: true }),
    ]);
    expect(secret?.stringData).toEqual(keys);
    expect(state.jwtPublicKey).toBe(keys['jwt-public-key']);
    expect([...state.keys].sort()).toEqual([...platformSecretKeys()].sort());
  });

  it('never creates or changes a Secret that exists, and reads its public key', async () => {
    const theirs = stored({ stringData: { 'jwt-public-key': 'THEIR PEM', 'opa-token': 't' } });
    const api = client(theirs);
    const generate = jest.fn(generatePlatformKeys);
    const state = await ensurePlatformSecret(api, install, generate);
    expect(api.created).toEqual([]);
    expect(generate).not.toHaveBeenCalled();
    expect(state.jwtPublicKey).toBe('THEIR PEM');
    expect([...state.keys].sort()).toEqual(['jwt-public-key', 'opa-token']);
  });

  it('keeps the Secret someone created meanwhile (409), not its own', async () => {
    const theirs = stored({ stringData: { 'opa-token': 'theirs' } });
    const api = client(undefined, theirs);
    const state = await ensurePlatformSecret(api, install);
    expect(api.created).toEqual([]);
    expect([...state.keys]).toEqual(['opa-token']);
  });

  it('derives the public key from the private key when only that is there', async () => {
    const keys = generatePlatformKeys();
    const api = client(
      stored({ stringData: { 'jwt-private-key': keys['jwt-private-key'] ?? '' } }),
    );
    const state = await ensurePlatformSecret(api, install);
    expect(state.jwtPublicKey).toBe(keys['jwt-public-key']);
  });

  it('reports the keys the pods refer to that an existing Secret lacks', () => {
    const desired = renderDesired({ install, policies: {} });
    const held = new Set(
      platformSecretKeys().filter((k) => k !== 'opa-token' && k !== 'db-proxy-token'),
    );
    expect(missingPlatformKeys(desired, 'acme-platform', held)).toEqual([
      'db-proxy-token',
      'opa-token',
    ]);
  });
});
