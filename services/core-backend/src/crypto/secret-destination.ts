/**
 * A stored secret goes only where it was given for. A change of where it would be sent (a host,
 * a port, a URL's scheme, host or port) must bring the secret again in the same request:
 * otherwise anyone allowed to edit the resource, who never knew its secret, could point it at a
 * server of their own and have the next test, try or check hand the secret over. Databases,
 * APIs, models and integrations all follow this one rule.
 */
import { HttpError } from '@pelita/kit';

/** The parts of a resource that say where its secrets are sent, by request field. */
export type Destination = Record<string, string | number | null>;

/** A secret the resource holds: the request field that carries it, and whether this request gives it. */
export interface HeldSecret {
  field: string;
  stored: boolean;
  given: boolean;
}

/** Where a request to `url` goes: scheme, host and port (a new path stays on the same server). */
export function originOf(url: string | null): string | null {
  if (url === null) return null;
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

const same = (a: string | number | null | undefined, b: string | number | null | undefined) =>
  typeof a === 'string' && typeof b === 'string' ? a.toLowerCase() === b.toLowerCase() : a === b;

/**
 * Throws 400 `secret_required` when the destination changes while a stored secret would be kept
 * (not given again, nor removed) by the change.
 */
export function requireSecretsForNewDestination(
  before: Destination,
  after: Destination,
  secrets: HeldSecret[],
): void {
  const moved = Object.keys(before).filter((part) => !same(before[part], after[part]));
  if (moved.length === 0) return;
  const missing = secrets.filter((s) => s.stored && !s.given).map((s) => s.field);
  if (missing.length === 0) return;
  throw new HttpError(
    400,
    'secret_required',
    `Changing ${moved.join(', ')} needs ${missing.join(' and ')} again in the same request: ` +
      'a stored secret is only sent where it was given for',
  );
}
