/**
 * Password hashes with Node's scrypt: `scrypt$N$r$p$salt$hash` (base64), compared in constant
 * time; the user service's accounts and the license service's dashboard accounts store this
 * format. The cost is a dependency, not a setting: a service gets its hasher where it is put
 * together, and nothing but code passes other parameters than OWASP's minimum (N = 2^17, r = 8,
 * p = 1; 128 MiB and about 0.4 s per hash on a CI core). Tests that are not about hashing pass a
 * cheaper one. A hash holds its own cost, so one made cheaper (earlier versions used N = 2^14)
 * still verifies; `needsRehash` tells a login to store one at the hasher's cost.
 */
import {
  randomBytes,
  scrypt as scryptCallback,
  timingSafeEqual,
  type ScryptOptions,
} from 'node:crypto';

export interface ScryptParams {
  /** CPU/memory cost, a power of two. */
  N: number;
  r: number;
  p: number;
}

/** OWASP's minimum for scrypt: what every service hashes with unless its composition says otherwise. */
export const OWASP_SCRYPT: Readonly<ScryptParams> = Object.freeze({ N: 2 ** 17, r: 8, p: 1 });

/** Its functions use no `this`: they may be passed on alone. */
export interface PasswordHasher {
  /** The cost of the hashes it makes. */
  readonly params: Readonly<ScryptParams>;
  hash: (password: string) => Promise<string>;
  /** Checks at the cost `stored` was made with. */
  verify: (password: string, stored: string) => Promise<boolean>;
  /** True when `stored` was made with a lower cost than this hasher's: rehash it at the next login. */
  needsRehash: (stored: string) => boolean;
  /**
   * A hash of nothing anyone knows, at this hasher's cost: verifying an unknown account against it
   * costs what a real check costs.
   */
  readonly unusableHash: string;
}

const KEY_LENGTH = 64;
/** scrypt needs 128 × N × r bytes; Node refuses above 32 MiB unless told. */
const MAX_MEMORY = 256 * 1024 * 1024;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, KEY_LENGTH, options, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

const encode = ({ N, r, p }: ScryptParams, salt: Buffer, key: Buffer) =>
  ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$');

export function scryptPasswords(params: ScryptParams = OWASP_SCRYPT): PasswordHasher {
  const own = Object.freeze({ N: params.N, r: params.r, p: params.p });
  // Refused when the service is put together rather than at the first login.
  if (!Number.isInteger(own.N) || own.N < 2 || (own.N & (own.N - 1)) !== 0)
    throw new Error(`scrypt N must be a power of two above 1, not ${own.N}`);
  if (!Number.isInteger(own.r) || own.r < 1 || !Number.isInteger(own.p) || own.p < 1)
    throw new Error(`scrypt r and p must be positive integers, not r = ${own.r}, p = ${own.p}`);
  if (128 * own.N * own.r > MAX_MEMORY)
    throw new Error(`scrypt N = ${own.N}, r = ${own.r} needs more than 256 MiB`);

  return {
    params: own,
    async hash(password) {
      const salt = randomBytes(16);
      return encode(own, salt, await scrypt(password, salt, { ...own, maxmem: MAX_MEMORY }));
    },
    async verify(password, stored) {
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
    },
    needsRehash(stored) {
      const [scheme, n, r, p] = stored.split('$');
      return scheme !== 'scrypt' || Number(n) < own.N || Number(r) < own.r || Number(p) < own.p;
    },
    unusableHash: encode(own, randomBytes(16), randomBytes(KEY_LENGTH)),
  };
}
