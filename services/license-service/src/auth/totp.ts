/**
 * TOTP second factor (RFC 6238: SHA-1, 6 digits, 30 s, as every authenticator app reads it).
 * A code is accepted for its own step and one step either side (clock drift), and only once:
 * the last accepted step is kept, and a code of that step or an earlier one is refused.
 */
import { Secret, TOTP } from 'otpauth';
import { renderSVG } from 'uqr';

const PERIOD = 30;

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, issuer: string, label: string): TOTP {
  return new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD,
    secret: Secret.fromBase32(secret),
  });
}

/** The `otpauth://` URI an authenticator app reads from the QR code. */
export function totpUri(secret: string, issuer: string, email: string): string {
  return totp(secret, issuer, email).toString();
}

/** The enrolment QR code as an SVG element (server-rendered, no script). */
export function totpQrSvg(uri: string): string {
  return renderSVG(uri, { border: 2 });
}

/**
 * The time step the code belongs to, or null when it is wrong or was already used
 * (`lastStep`: the step of the code accepted last).
 */
export function acceptedStep(
  secret: string,
  code: string,
  lastStep: number | null,
  now = Date.now(),
): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totp(secret, 'x', 'x').validate({ token: code, timestamp: now, window: 1 });
  if (delta === null) return null;
  const step = Math.floor(now / 1000 / PERIOD) + delta;
  if (lastStep !== null && step <= lastStep) return null;
  return step;
}
