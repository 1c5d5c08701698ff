/**
 * Password hashes with Node's scrypt: `scrypt$N$r$p$salt$hash` (base64), compared in constant
 * time; the user service's accounts and the license service's dashboard accounts store this
 * format. Cost: OWASP's minimum for scrypt (N = 2^17, r = 8, p = 1; 128 MiB and about 0.4 s per
 * hash on a CI core). A hash holds its own cost, so one made cheaper (earlier versions used
 * N = 2^14) still verifies; `needsRehash` tells a login to store a current one.
 */
import {
  randomBytes,
  scrypt as scryptCallback,
  timingSafeEqual,
  type ScryptOptions,
} from 'node:crypto';

const KEY_LENGTH = 64;
const PARAMS = { N: 2 ** 17, r: 8, p: 1 };
/** scrypt needs 128 × N × r bytes; Node refuses above 32 MiB unless told. */
const MAX_MEMORY = 256 * 1024 * 1024;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, KEY_LENGTH, options, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, { ...PARAMS, maxmem: MAX_MEMORY });
  return [
    'scrypt',
    PARAMS.N,
    PARAMS.r,
    PARAMS.p,
    salt.toString('base64'),
    key.toString('base64'),
  ].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await scrypt(password, Buffer.from(salt, 'base64'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAX_MEMORY,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** True when `stored` was made with a lower cost than today's: rehash it at the next login. */
export function needsRehash(stored: string): boolean {
  const [scheme, n, r, p] = stored.split('$');
  return (
    scheme !== 'scrypt' || Number(n) < PARAMS.N || Number(r) < PARAMS.r || Number(p) < PARAMS.p
  );
}

/** A hash of nothing anyone knows: verifying against it costs what a real check costs. */
export const UNUSABLE_HASH = `scrypt$${PARAMS.N}$8$1$${randomBytes(16).toString('base64')}$${randomBytes(KEY_LENGTH).toString('base64')}`;
