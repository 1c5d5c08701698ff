/** The signing key: from the setting, ephemeral only when development mode allows it. */
import { generateKeyPairSync } from 'node:crypto';
import { createLogger } from '@pelita/kit';
import { loadSigningKeys } from '../../src/auth/signing-keys';

const logger = createLogger({ name: 'signing-keys-test', level: 'silent' });

describe('signing keys', () => {
  it('refuses to make up a key unless allowed', () => {
    expect(() => loadSigningKeys(undefined, undefined, logger)).toThrow(/JWT_PRIVATE_KEY/);
    expect(loadSigningKeys(undefined, undefined, logger, true).publicJwk).toMatchObject({
      kty: 'EC',
      crv: 'P-256',
    });
  });

  it('uses the configured P-256 key and refuses another curve', () => {
    const pem = (curve: string) =>
      generateKeyPairSync('ec', { namedCurve: curve })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString();
    const p256 = pem('P-256');
    expect(loadSigningKeys(p256, undefined, logger).privateKey.asymmetricKeyType).toBe('ec');
    expect(() => loadSigningKeys(pem('P-384'), undefined, logger)).toThrow(/P-256/);
  });
});
