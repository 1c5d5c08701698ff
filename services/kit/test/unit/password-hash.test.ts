import { scrypt } from 'node:crypto';
import { OWASP_SCRYPT, scryptPasswords } from '../../src/password-hash';
import { testPasswords } from '@pelita/kit/testing';

// What every service hashes with unless its composition passes another hasher: these tests are
// about hashing itself, so they pay the production cost.
const production = scryptPasswords();
const { hash: hashPassword, verify: verifyPassword, needsRehash } = production;

/** Hashes as stored before this module moved into the kit, made by each service's own copy. */
const STORED = {
  userService: {
    password: 'stored before the move',
    hash: 'scrypt$131072$8$1$FXfb5aLN7wt6gv5NIsSqSA==$gb6APFGI2xOLxc5PqK1a1rLziNBLOLQIVzX0sI02rx0SjaxKWyw9Erdr3hUsn6JKqvg9uIOnFFgKpp0CG+EMaw==',
  },
  licenseService: {
    password: 'stored by the license service',
    hash: 'scrypt$131072$8$1$DQtmJVyRCRs2JiqL755ADA==$DluNIMGeAiYf0DJo+yOr7BhXr2aCO7SbtSO1W68aC2/HBXFSHNw3BN0UDioWgS3UyvJpOgtDz7zNKVhKCgaQAQ==',
  },
};

describe('password hashes', () => {
  it('verifies the right password and rejects others', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^scrypt\$131072\$8\$1\$[^$]+\$[^$]+$/);
    expect(hash).not.toContain('correct horse');
    await expect(verifyPassword('correct horse', hash)).resolves.toBe(true);
    await expect(verifyPassword('correct horse!', hash)).resolves.toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hashPassword('same')).not.toBe(await hashPassword('same'));
  });

  it("hashes at OWASP's minimum cost by default", () => {
    expect(OWASP_SCRYPT).toEqual({ N: 2 ** 17, r: 8, p: 1 });
    expect(production.params).toEqual(OWASP_SCRYPT);
  });

  it('never matches the unusable hash or a malformed one', async () => {
    await expect(verifyPassword('', production.unusableHash)).resolves.toBe(false);
    await expect(verifyPassword('x', 'plain-text')).resolves.toBe(false);
  });

  it.each(Object.entries(STORED))(
    'still verifies a hash the %s stored before, and does not ask to rehash it',
    async (_service, { password, hash }) => {
      await expect(verifyPassword(password, hash)).resolves.toBe(true);
      await expect(verifyPassword(`${password}.`, hash)).resolves.toBe(false);
      expect(needsRehash(hash)).toBe(false);
    },
  );

  it("uses at least OWASP's scrypt cost, and still verifies older, cheaper hashes", async () => {
    const current = await hashPassword('pw');
    expect(needsRehash(current)).toBe(false);
    // A hash made at the cost used before (N = 2^14), as stored by earlier versions.
    const salt = Buffer.alloc(16, 7);
    const key = await new Promise<Buffer>((resolve, reject) =>
      scrypt('pw', salt, 64, { N: 16_384, r: 8, p: 1 }, (err, out) =>
        err ? reject(err) : resolve(out),
      ),
    );
    const older = ['scrypt', 16_384, 8, 1, salt.toString('base64'), key.toString('base64')].join(
      '$',
    );
    await expect(verifyPassword('pw', older)).resolves.toBe(true);
    expect(needsRehash(older)).toBe(true);
    expect(needsRehash('plain-text')).toBe(true);
  });

  it('makes its unusable hash at its own cost, so a miss costs what a hit costs', () => {
    expect(production.unusableHash).toMatch(/^scrypt\$131072\$8\$1\$[^$]+\$[^$]+$/);
    expect(production.needsRehash(production.unusableHash)).toBe(false);
    const cheap = scryptPasswords({ N: 1024, r: 8, p: 1 });
    expect(cheap.unusableHash).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(cheap.unusableHash).not.toBe(scryptPasswords({ N: 1024, r: 8, p: 1 }).unusableHash);
  });

  it("a cheaper hasher's hashes verify at their own cost, and the production one asks to rehash them", async () => {
    const cheap = testPasswords();
    const hash = await cheap.hash('pw');
    expect(hash).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(cheap.needsRehash(hash)).toBe(false);
    await expect(verifyPassword('pw', hash)).resolves.toBe(true);
    await expect(verifyPassword('pw!', hash)).resolves.toBe(false);
    expect(needsRehash(hash)).toBe(true);
    // The other way round: a stronger hash is not weakened by a cheaper hasher.
    expect(cheap.needsRehash(STORED.userService.hash)).toBe(false);
  });

  it('refuses parameters scrypt cannot use when the service is put together', () => {
    expect(() => scryptPasswords({ N: 1000, r: 8, p: 1 })).toThrow(/power of two/);
    expect(() => scryptPasswords({ N: 1024, r: 0, p: 1 })).toThrow(/positive integers/);
    expect(() => scryptPasswords({ N: 2 ** 20, r: 8, p: 1 })).toThrow(/256 MiB/);
  });
});
