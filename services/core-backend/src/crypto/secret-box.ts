/**
 * Secrets stored by the core backend (model API keys, database passwords, API credentials):
 * AES-256-GCM with `ENCRYPTION_KEY`, a fresh 12-byte IV per value, the 16-byte tag appended.
 * The stored text is `v1:<base64 of iv | ciphertext | tag>`: the version names the key and
 * scheme, so a key rotation can add `v2` and re-seal lazily. Tampered or foreign values fail to
 * open (an error, never garbage).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('ENCRYPTION_KEY must be 32 bytes');
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([
        cipher.update(plain, 'utf8'),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return `${VERSION}:${Buffer.concat([iv, body]).toString('base64')}`;
    },
    open(sealed) {
      const [version, payload] = sealed.split(':');
      if (version !== VERSION || !payload) throw new Error('not a sealed secret of this version');
      const bytes = Buffer.from(payload, 'base64');
      if (bytes.length < 12 + 16) throw new Error('sealed secret too short');
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      return Buffer.concat([
        decipher.update(bytes.subarray(12, bytes.length - 16)),
        decipher.final(),
      ]).toString('utf8');
    },
  };
}
