/**
 * The finalizer `pelita.io/data-deletion` and what it waits for: an install's `deletionPolicy`
 * carried out before the install goes. Retain records what was kept; Delete stops the install's
 * pods, decides what is the install's alone (install-data.ts), deletes it (data-deletion.ts) and
 * only then lets the install go. The reconciler writes the status this reports.
 */
import type { KubernetesObject, V1Secret } from '@kubernetes/client-node';
import type { Logger } from '@pelita/kit';
import { API_VERSION, KIND, parseSpec, type PlatformInstall } from '../crd/platform-install';
import { apiStatus, describeApiError, type KubeClient, type ObjectRef } from '../kube/client';
import { DEPLOYMENT, STATEFUL_SET } from '../kube/kinds';
import type { JsonPatchOp } from './added-fields';
import { deleteInstallData, type SecretValue } from './data-deletion';
import {
  decideDeletion,
  describeItem,
  describeItems,
  installData,
  type DataItem,
} from './install-data';
import type { LiveView } from './plan';

/**
 * On every install: its deletion waits until the operator has carried out `deletionPolicy`
 * (Delete: its data removed from the servers; Retain: an Event naming what was kept).
 */
export const DATA_FINALIZER = 'pelita.io/data-deletion';

type Install = KubernetesObject & { spec?: unknown };

export interface DeletionContext {
  client: KubeClient;
  view: Pick<LiveView, 'children'> & { allInstalls(): Promise<readonly Install[]> };
  logger: Logger;
  event: (type: 'Normal' | 'Warning', reason: string, message: string) => Promise<void>;
  /** Writes the progress (what is deleted, what kept) and the failures, each naming its server. */
  report: (progress: string, failures: string[]) => Promise<void>;
}

export function hasDataFinalizer(install: Install): boolean {
  return install.metadata?.finalizers?.includes(DATA_FINALIZER) ?? false;
}

/**
 * Appends the finalizer. The resourceVersion test makes a patch computed from a stale cache fail
 * (and retry) instead of replacing a finalizer list someone else just wrote.
 */
export function addFinalizer(client: KubeClient, install: Install): Promise<void> {
  const guard: JsonPatchOp = {
    op: 'test',
    path: '/metadata/resourceVersion',
    value: install.metadata?.resourceVersion,
  };
  return client.patchJson(
    installRef(install),
    install.metadata?.finalizers?.length
      ? [guard, { op: 'add', path: '/metadata/finalizers/-', value: DATA_FINALIZER }]
      : [guard, { op: 'add', path: '/metadata/finalizers', value: [DATA_FINALIZER] }],
  );
}

/**
 * Carries out the install's deletionPolicy. Answers true once the finalizer is removed, false
 * while the pods are still stopping (their removal from the cache queues the install again).
 * With Delete, a failure leaves the finalizer (the install stays, in deletion and Degraded) and
 * throws, so the work queue retries with its backoff.
 */
export async function finalizeInstall(raw: Install, context: DeletionContext): Promise<boolean> {
  const { client, logger, event, report } = context;
  const key = `${raw.metadata?.namespace}/${raw.metadata?.name}`;
  const install = parsedInstall(raw);
  const policy = install?.spec.deletionPolicy ?? storedPolicy(raw);
  if (policy !== 'Delete') {
    const kept = install ? describeItems(installData(install)) : [];
    await event(
      'Normal',
      'DataRetained',
      kept.length > 0
        ? `deletionPolicy Retain: kept ${kept.join('; ')}`
        : 'deletionPolicy Retain: nothing removed',
    );
    logger.info({ install: key, kept }, 'install deleted; its data retained');
    await removeFinalizer(client, raw);
    return true;
  }

  if (!install) {
    await report('cannot tell what data the install has', ['the stored spec does not parse']);
    throw new Error(`${key}: deletionPolicy Delete but the stored spec does not parse`);
  }
  // A running pod would write again what was just deleted (a session, an activity log entry,
  // a queue's consumer group): the workloads go first, with their pods (foreground deletion).
  const running = workloadsOf(raw, context.view);
  if (running.length > 0) {
    const stopping = `stopping the pods before deleting the data: ${running.map((w) => w.ref.name).join(', ')}`;
    try {
      for (const workload of running.filter((w) => !w.deleting)) {
        await client.remove(workload.ref, 'Foreground');
      }
    } catch (err) {
      const message = `deleting the workloads: ${describeApiError(err)}`;
      await report(stopping, [message]);
      throw new Error(`${key}: ${message}`, { cause: err });
    }
    await report(stopping, []);
    return false;
  }

  let others: Array<{ key: string; items: DataItem[] }>;
  try {
    others = await othersData(raw, context.view);
  } catch (err) {
    const message = `other installs: ${describeApiError(err)}`;
    await report('cannot tell which data other installs use', [message]);
    throw new Error(`${key}: ${message}`, { cause: err });
  }
  const decision = decideDeletion(installData(install), others);
  const deleting = describeItems(decision.remove).join('; ') || 'nothing';
  const kept = decision.keep.map(
    ({ item, sharedWith }) => `${describeItem(item)} (used by ${sharedWith.join(', ')})`,
  );
  const progress = [
    `deleting ${deleting}`,
    ...(kept.length > 0 ? [`kept, shared: ${kept.join('; ')}`] : []),
  ].join('. ');
  await report(progress, []);
  const failures = await deleteInstallData(install, decision.remove, secretReader(raw, client));
  if (failures.length > 0) {
    const messages = failures.map((f) => `${describeItem(f.item)}: ${f.message}`);
    await report(progress, messages);
    throw new Error(`${key}: data deletion failed: ${messages.join('; ')}`);
  }
  await event('Normal', 'DataDeleted', `deleted ${deleting}`);
  if (kept.length > 0) {
    await event('Warning', 'DataShared', `kept, used by other installs: ${kept.join('; ')}`);
  }
  logger.info(
    { install: key, deleted: decision.remove.map(describeItem), kept },
    'install deleted with its data',
  );
  await removeFinalizer(client, raw);
  return true;
}

async function removeFinalizer(client: KubeClient, install: Install): Promise<void> {
  const path = `/metadata/finalizers/${install.metadata?.finalizers?.indexOf(DATA_FINALIZER)}`;
  try {
    await client.patchJson(installRef(install), [
      { op: 'test', path, value: DATA_FINALIZER },
      { op: 'remove', path },
    ]);
  } catch (err) {
    if (apiStatus(err) !== 404) throw err;
  }
}

/** The install's Deployments and StatefulSets still in the cache (deleting or not). */
function workloadsOf(
  install: Install,
  view: DeletionContext['view'],
): Array<{ ref: ObjectRef; deleting: boolean }> {
  const namespace = install.metadata?.namespace ?? '';
  return [DEPLOYMENT, STATEFUL_SET].flatMap((kind) =>
    view.children(kind, namespace, install.metadata?.uid ?? '').map((child) => ({
      ref: {
        apiVersion: kind.apiVersion,
        kind: kind.kind,
        name: child.metadata?.name ?? '',
        namespace,
        uid: child.metadata?.uid,
      },
      deleting: child.metadata?.deletionTimestamp !== undefined,
    })),
  );
}

/**
 * The data of every other install. One whose spec does not parse may share anything: the
 * deletion waits (fails) rather than guess.
 */
async function othersData(
  install: Install,
  view: DeletionContext['view'],
): Promise<Array<{ key: string; items: DataItem[] }>> {
  const others = (await view.allInstalls()).filter(
    (other) => other.metadata?.uid !== install.metadata?.uid,
  );
  return others.map((other) => {
    const key = `${other.metadata?.namespace}/${other.metadata?.name}`;
    const parsed = parsedInstall(other);
    if (!parsed) throw new Error(`the spec of ${key} does not parse: it may share this data`);
    return { key, items: installData(parsed) };
  });
}

/** Reads the Secrets the install's dependencies reference, each once, by name. */
function secretReader(install: Install, client: KubeClient): SecretValue {
  const namespace = install.metadata?.namespace ?? '';
  const read = new Map<string, Promise<V1Secret | undefined>>();
  return async (ref) => {
    if (!read.has(ref.name)) read.set(ref.name, client.readSecret(namespace, ref.name));
    const value = (await read.get(ref.name))?.data?.[ref.key];
    return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
  };
}

function parsedInstall(raw: Install): PlatformInstall | undefined {
  try {
    return {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: {
        name: raw.metadata?.name ?? '',
        namespace: raw.metadata?.namespace ?? '',
        uid: raw.metadata?.uid ?? '',
      },
      spec: parseSpec(raw.spec),
    };
  } catch {
    return undefined;
  }
}

function installRef(install: Install): ObjectRef {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    name: install.metadata?.name ?? '',
    namespace: install.metadata?.namespace ?? '',
  };
}

/** The policy as stored, for a spec that no longer parses (Retain unless Delete is written). */
function storedPolicy(raw: Install): 'Retain' | 'Delete' {
  return (raw.spec as { deletionPolicy?: unknown } | undefined)?.deletionPolicy === 'Delete'
    ? 'Delete'
    : 'Retain';
}
