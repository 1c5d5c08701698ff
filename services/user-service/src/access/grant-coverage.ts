/**
 * Whether one grant covers another: every request the second allows, the first allows too. An
 * actor may hand out only what they hold, so this decides what an administrator may grant.
 * Paths use the policy's glob (policies/authz.rego): `*` within one segment, `**` across
 * segments. Deciding containment of two globs exactly is more than needed; this answers
 * "covered" only when it is sure, so a doubtful case is refused, never allowed.
 */

export interface GrantPattern {
  method: string;
  path: string;
}

const segments = (path: string) => path.replace(/^\/+|\/+$/g, '').split('/');

/** A segment pattern with `*` as a regular expression over one segment. */
function segmentRegex(pattern: string): RegExp {
  const escaped = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('[^/]*')}$`);
}

function segmentCovers(outer: string, inner: string): boolean {
  if (outer === inner) return true;
  if (outer === '*') return !inner.includes('**');
  // A narrower wildcard inside `inner` is only sure to be covered by an identical one.
  if (inner.includes('*')) return false;
  return outer.includes('*') && segmentRegex(outer).test(inner);
}

function pathCovers(outer: string[], inner: string[]): boolean {
  const [head, ...rest] = outer;
  if (head === undefined) return inner.length === 0;
  if (head === '**') {
    // Only a trailing `**` is understood: it covers one or more further segments of anything.
    return rest.length === 0 && inner.length > 0;
  }
  const [first, ...others] = inner;
  if (first === undefined || first.includes('**')) return false;
  return segmentCovers(head, first) && pathCovers(rest, others);
}

/** True when every request `inner` allows is allowed by `outer`. */
export function grantCovers(outer: GrantPattern, inner: GrantPattern): boolean {
  if (outer.method.toUpperCase() !== inner.method.toUpperCase()) return false;
  if (outer.path.replace(/\/+$/, '') === inner.path.replace(/\/+$/, '')) return true;
  return pathCovers(segments(outer.path), segments(inner.path));
}

/** True when one of `held` covers `wanted`. */
export function heldCovers(held: GrantPattern[], wanted: GrantPattern): boolean {
  return held.some((grant) => grantCovers(grant, wanted));
}
