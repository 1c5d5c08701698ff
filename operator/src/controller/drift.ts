/**
 * Whether a child must be applied: it is missing, or a field we set differs from the live object.
 * Fields added by the API server or other controllers (defaults, status, annotations) are not
 * drift. Skipping unchanged children keeps a reconcile of a settled install at zero writes, which
 * matters because every workload status change triggers one.
 */
import type { KubernetesObject } from '@kubernetes/client-node';

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
