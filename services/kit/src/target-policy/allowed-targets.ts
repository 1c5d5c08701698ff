/** The `ALLOWED_TARGETS` setting: CIDR ranges and host names reachable although not public. */
import { z } from 'zod';
import { commaList } from '../config';
import { errorMessage } from '../error-message';
import { parseRange, type IpRange } from './ip-address';

export interface AllowedTargets {
  ranges: IpRange[];
  /** Lower-case, without a trailing dot. */
  names: Set<string>;
}

const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** Throws an Error naming the first entry that is neither a CIDR range, an address nor a host name. */
export function parseAllowedTargets(entries: string[]): AllowedTargets {
  const allowed: AllowedTargets = { ranges: [], names: new Set() };
  for (const entry of entries) {
    const range = parseRange(entry);
    if (range) {
      allowed.ranges.push(range);
      continue;
    }
    const name = normaliseHostName(entry);
    if (entry.includes('/') || !HOST_NAME.test(name)) {
      throw new Error(`"${entry}" is neither a CIDR range, an IP address nor a host name`);
    }
    allowed.names.add(name);
  }
  return allowed;
}

/**
 * The allowlist as a setting (`127.0.0.0/8, ::1, api.internal`), read the same way by every
 * service that reaches user-given URLs; empty or unset means public addresses only.
 */
export const allowedTargetsSetting = commaList.transform((entries, ctx) => {
  try {
    return parseAllowedTargets(entries);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: errorMessage(err) });
    return z.NEVER;
  }
});

export function normaliseHostName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}
