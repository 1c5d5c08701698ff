import { randomBytes } from 'node:crypto';
import { createSecretBox } from '../../src/crypto/secret-box';

describe('the secret box', () => {
  const box = createSecretBox(randomBytes(32));

  it('opens what it sealed, with a fresh IV each time', () => {
    const a = box.seal('s3cr3t-password');
    const b = box.seal('s3cr3t-password');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1:/);
    expect(a).not.toContain('s3cr3t');
    expect(box.open(a)).toBe('s3cr3t-password');
    expect(box.open(b)).toBe('s3cr3t-password');
  });

  it('refuses a tampered value and a value sealed with another key', () => {
    const sealed = box.seal('value');
    const bytes = Buffer.from(sealed.slice(3), 'base64');
    bytes[14]! ^= 1;
    expect(() => box.open(`v1:${bytes.toString('base64')}`)).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed)).toThrow();
    expect(() => box.open('v2:abc')).toThrow(/version/);
  });

  it('wants a 32-byte key', () => {
    expect(() => createSecretBox(randomBytes(16))).toThrow(/32 bytes/);
  });
});
