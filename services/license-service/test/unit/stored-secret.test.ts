import { randomBytes } from 'node:crypto';
import { createSecretSeal } from '../../src/store/stored-secret';

describe('stored credentials', () => {
  const key = randomBytes(32);
  const seal = createSecretSeal(key);

  it('seals with a fresh IV each time and opens again', () => {
    const a = seal.seal('machine-secret');
    const b = seal.seal('machine-secret');
    expect(a).toMatch(/^enc:v1:/);
    expect(a).not.toContain('machine-secret');
    expect(a).not.toBe(b);
    expect(seal.open(a)).toBe('machine-secret');
  });

  it('refuses a tampered value, or one sealed under another key', () => {
    const sealed = seal.seal('machine-secret');
    const body = sealed.split(':').at(-1)!;
    const flipped = Buffer.from(body, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => seal.open(sealed.replace(body, flipped.toString('base64')))).toThrow();
    expect(() => createSecretSeal(randomBytes(32)).open(sealed)).toThrow();
  });

  it('keeps values as they are without a key, and reads values stored before a key was set', () => {
    expect(createSecretSeal(undefined).seal('plain')).toBe('plain');
    expect(seal.open('stored-before-the-key')).toBe('stored-before-the-key');
    expect(() => createSecretSeal(undefined).open(seal.seal('x'))).toThrow(/ENCRYPTION_KEY/);
  });
});
