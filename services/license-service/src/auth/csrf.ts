/**
 * Anti-forgery checks of every dashboard form. A logged-in (or half logged-in) form carries
 * the session's own random token; the login form, before any session exists, carries the value
 * of a random cookie (double submit: another site can neither read nor, with `__Host-` and
 * SameSite=Strict, set that cookie). Both are compared in constant time. A request whose Origin
 * header names another site is refused too, whatever token it carries.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

export const CSRF_FIELD = '_csrf';

export function sameToken(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const newLoginCsrf = (): string => randomBytes(32).toString('base64url');

/** False when the browser says the form came from another origin. */
export function sameOrigin(req: Request): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  const host = req.headers.host;
  if (!host) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
