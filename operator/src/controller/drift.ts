/**
 * Whether a child must be applied: it is missing, or a field we set differs from the live object.
 * Fields added by the API server or other controllers (defaults, status, annotations) are not
 * drift. Skipping unchanged children keeps a reconcile of a settled install at zero writes, which
 * matters because every workload status change triggers one.
 *
 * "Live holds every desired value" cannot see a field the desired object no longer has (a removed
 * ConfigMap key, removed limits, removed ingress TLS): live still holds it. So each applied object
 * carries a hash of the desired object it was applied from; a different hash means the desired
 * object changed, and applying it lets server-side apply remove the fields we stopped setting.
 */
import { createHash } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';

export const DESIRED_HASH_ANNOTATION = 'pelita.io/desired-hash';

/** A copy of `desired` annotated with the SHA-256 of its canonical JSON (keys sorted). */
export function withDesiredHash<T extends KubernetesObject>(desired: T): T {
  const hash = createHash('sha256').update(canonicalJson(desired)).digest('hex');
  const metadata = desired.metadata ?? {};
  return {
    ...desired,
    metadata: {
      ...metadata,
      annotations: { ...metadata.annotations, [DESIRED_HASH_ANNOTATION]: hash },
    },
  };
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * `desired` carries its hash (withDesiredHash), so a changed desired object differs from live in
 * that annotation, and an edit by someone else differs in the edited field.
 */
export function needsApply(desired: KubernetesObject, live: KubernetesObject | undefined): boolean {
  if (live === undefined) return true;
  // Lists omit apiVersion and kind on their items, so compare what lies under them only.
  const { apiVersion: _a, kind: _k, ...wanted } = desired;
  return !contains(live, wanted);
}

/**
 * `actual` holds every value of `expected`; arrays must match element by element. An empty list
 * or map counts as present when absent: the API drops empty ones (`env: []`, `imagePullSecrets: []`).
 */
function contains(actual: unknown, expected: unknown): boolean {
  if (expected === null || typeof expected !== 'object') return actual === expected;
  if (actual === undefined && Object.keys(expected).length === 0) return true;
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, i) => contains(actual[i], item))
    );
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
  const record = actual as Record<string, unknown>;
  return Object.entries(expected).every(
    ([key, value]) => value === undefined || contains(record[key], value),
  );
}
