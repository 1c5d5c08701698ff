import {
  UNUSABLE_HASH,
  hashPassword,
  needsRehash,
  verifyPassword,
} from '../../src/credentials/passwords';

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

  it('never matches the unusable hash or a malformed one', async () => {
    await expect(verifyPassword('', UNUSABLE_HASH)).resolves.toBe(false);
    await expect(verifyPassword('x', 'plain-text')).resolves.toBe(false);
  });

  it("uses at least OWASP's scrypt cost, and still verifies older, cheaper hashes", async () => {
    const current = await hashPassword('pw');
    expect(needsRehash(current)).toBe(false);
    // A hash made at the cost used before (N = 2^14), as stored by earlier versions.
    const { scrypt } = await import('node:crypto');
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
});
