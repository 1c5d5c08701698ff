/**
 * Meta's proofs on a webhook: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body with
 * the app secret>` on every delivery, and the verify token of the subscription handshake. Both
 * compared in constant time: a comparison that stops at the first wrong byte tells an attacker
 * how much of a guess was right.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/** Whether `header` signs exactly these bytes with the app secret. */
export function signatureMatches(
  rawBody: Buffer | undefined,
  header: string | undefined,
  appSecret: string,
): boolean {
  const match = rawBody && header ? SIGNATURE.exec(header.trim()) : null;
  if (!rawBody || !match) return false;
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(match[1]!, 'hex'), expected);
}

/** Whether two texts are equal, in a time that does not depend on where they differ. */
export function sameText(given: string, expected: string): boolean {
  // Digests have one length whatever the inputs: timingSafeEqual needs equal lengths.
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}
