/**
 * One-time recovery codes, shown once at enrolment: ten random codes of 10 base32 characters
 * (50 bits each). Stored as SHA-256 hashes — their entropy makes a slow hash unnecessary — and
 * removed when used.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export function newRecoveryCodes(count = 10): string[] {
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(10);
    const chars = [...bytes].map((b) => ALPHABET[b % ALPHABET.length]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

const normalise = (code: string) => code.toUpperCase().replace(/[^A-Z0-9]/g, '');

export const hashRecoveryCode = (code: string): string =>
  createHash('sha256').update(normalise(code)).digest('hex');

/** The stored hashes without the one `code` matches, or null when it matches none. */
export function consumeRecoveryCode(code: string, hashes: string[]): string[] | null {
  if (normalise(code).length !== 10) return null;
  const given = Buffer.from(hashRecoveryCode(code), 'hex');
  const index = hashes.findIndex((hash) => {
    const stored = Buffer.from(hash, 'hex');
    return stored.length === given.length && timingSafeEqual(stored, given);
  });
  return index < 0 ? null : hashes.filter((_, i) => i !== index);
}
