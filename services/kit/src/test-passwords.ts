/**
 * The hasher for tests that are not about hashing (through @pelita/kit/testing only): the
 * production code and format at N = 2^10, 1 MiB and a few milliseconds instead of 128 MiB and
 * 0.4 s a hash. Tests of hashing itself keep `scryptPasswords()` and assert its cost.
 */
import { scryptPasswords, type PasswordHasher } from './password-hash';

export function testPasswords(): PasswordHasher {
  return scryptPasswords({ N: 2 ** 10, r: 8, p: 1 });
}
