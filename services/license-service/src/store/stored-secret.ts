/**
 * Credentials kept in the database (a mapping's machine-identity secret, its GitLab trigger
 * token), sealed with AES-256-GCM under ENCRYPTION_KEY: `enc:v1:<iv>:<tag>:<ciphertext>`
 * (base64). A database dump or a read-only SQL hole then reveals no credential. Without a key
 * values are kept as they are, and a sealed value read without its key is an error, never
 * passed on as if it were the credential.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';

export interface SecretSeal {
  seal(value: string): string;
  open(stored: string): string;
}

export function createSecretSeal(key: Buffer | undefined): SecretSeal {
  return {
    seal(value) {
      if (!key) return value;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
      return `${PREFIX}${[iv, cipher.getAuthTag(), body].map((b) => b.toString('base64')).join(':')}`;
    },
    open(stored) {
      if (!stored.startsWith(PREFIX)) return stored;
      if (!key) throw new Error('a stored credential is sealed and ENCRYPTION_KEY is not set');
      const [iv, tag, body] = stored
        .slice(PREFIX.length)
        .split(':')
        .map((p) => Buffer.from(p, 'base64'));
      if (!iv || !tag || !body) throw new Error('a stored credential is malformed');
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    },
  };
}
