/**
 * Fresh values for a new platform Secret (the only module of the operator that makes secrets):
 * an ES256 (P-256) signing key pair, a random token per service that checks one, the OPA writer
 * token, and core-backend's AES-256 encryption key.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { platformSecretKeys } from './service-catalog';

export function generatePlatformKeys(): Record<string, string> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const values: Record<string, string> = {};
  for (const key of platformSecretKeys()) {
    // 256 random bits each: tokens as hex, the encryption key as base64 (what core-backend reads).
    values[key] = randomBytes(32).toString(key === 'encryption-key' ? 'base64' : 'hex');
  }
  values['jwt-private-key'] = privateKey;
  values['jwt-public-key'] = publicKey;
  return values;
}
