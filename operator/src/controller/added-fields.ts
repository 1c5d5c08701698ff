/**
 * Drift that adds: fields someone else put into an object the operator owns. Server-side apply
 * leaves other managers' fields alone and the drift check (drift.ts) compares only the fields
 * the operator sets, so a key added by hand to a service's ConfigMap, or an env var set with
 * `kubectl set env`, would stay and change the service's settings behind the install's back.
 *
 * Covered: ConfigMap `data` and `binaryData` keys, and `env` entries of the containers and init
 * containers of Deployment and StatefulSet pod templates. The API and the controllers never add
 * either, so any such field the desired object lacks was added by someone. Not covered: labels
 * and annotations (tools legitimately add them: `kubectl rollout restart` stamps the pod
 * template, the Deployment controller its revision), and fields with API defaults.
 *
 * The removal is a JSON patch, not a replace: it needs no `update` verb, removes exactly the
 * added fields (a replace would also drop what the API and controllers wrote), and each removal
 * is preceded by a `test` of what it removes, so a patch computed from a stale cache fails (422,
 * retried with the cache's next view) instead of removing the wrong list element.
 */
import type { KubernetesObject, V1Container, V1PodTemplateSpec } from '@kubernetes/client-node';

export type JsonPatchOp =
  | { op: 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'add'; path: string; value: unknown };

/** The JSON patch removing what `live` holds beyond `desired`; empty when nothing was added. */
export function removeAddedFields(
  desired: KubernetesObject,
  live: KubernetesObject | undefined,
): JsonPatchOp[] {
  if (!live) return [];
  switch (desired.kind) {
    case 'ConfigMap':
      return ['data', 'binaryData'].flatMap((field) =>
        addedKeys(
          field,
          (desired as Record<string, unknown>)[field],
          (live as Record<string, unknown>)[field],
        ),
      );
    case 'Deployment':
    case 'StatefulSet':
      return addedEnv(podTemplate(desired), podTemplate(live));
    default:
      return [];
  }
}

function addedKeys(field: string, desired: unknown, live: unknown): JsonPatchOp[] {
  if (!isRecord(live)) return [];
  const wanted = isRecord(desired) ? desired : {};
  return Object.keys(live)
    .filter((key) => !(key in wanted))
    .flatMap((key) => {
      const path = `/${field}/${pointerSegment(key)}`;
      return [
        { op: 'test' as const, path, value: live[key] },
        { op: 'remove' as const, path },
      ];
    });
}

function addedEnv(
  desired: V1PodTemplateSpec | undefined,
  live: V1PodTemplateSpec | undefined,
): JsonPatchOp[] {
  const ops: JsonPatchOp[] = [];
  for (const list of ['initContainers', 'containers'] as const) {
    const wantedContainers = desired?.spec?.[list] ?? [];
    (live?.spec?.[list] ?? []).forEach((container: V1Container, c) => {
      const wanted = wantedContainers.find((w) => w.name === container.name);
      // A container the operator does not render is not its to edit (an injected sidecar).
      if (!wanted) return;
      const names = new Set((wanted.env ?? []).map((e) => e.name));
      const env = container.env ?? [];
      // From the end, so that each removal leaves the indexes of the ones before it in place.
      for (let i = env.length - 1; i >= 0; i -= 1) {
        const name = env[i]!.name;
        if (names.has(name)) continue;
        const path = `/spec/template/spec/${list}/${c}/env/${i}`;
        ops.push(
          { op: 'test', path: `/spec/template/spec/${list}/${c}/name`, value: container.name },
          { op: 'test', path: `${path}/name`, value: name },
          { op: 'remove', path },
        );
      }
    });
  }
  return ops;
}

function podTemplate(object: KubernetesObject): V1PodTemplateSpec | undefined {
  return (object as { spec?: { template?: V1PodTemplateSpec } }).spec?.template;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 6901: `~` and `/` inside a key are escaped. */
function pointerSegment(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}
