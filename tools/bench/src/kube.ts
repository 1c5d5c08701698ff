/**
 * A private Kubernetes API for a benchmark: its own kube-apiserver (shared etcd, own prefix, no
 * controllers) with the PlatformInstall CRD installed, and a watch-fed view of what exists.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  Watch,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { errorMessage } from '@pelita/kit';
import { collectionPath, PLATFORM_INSTALL, type WatchedKind } from '@pelita/operator';
import { kubectlApply, startKubeApiserver, waitFor } from '@pelita/testenv';

const ROOT = join(__dirname, '..', '..', '..');
const CRD_FILE = join(ROOT, 'crds', 'platforminstalls.pelita.io.yaml');

export interface PrivateCluster {
  kubeconfigPath: string;
  objects: KubernetesObjectApi;
  createNamespace(name: string): Promise<void>;
  /** Server-side apply as `fieldManager`, forcing ownership (as the operator does). */
  apply<T extends KubernetesObject>(object: T, fieldManager: string): Promise<T>;
  stop(): Promise<void>;
}

export async function startPrivateCluster(): Promise<PrivateCluster> {
  const apiserver = await startKubeApiserver();
  try {
    const config = new KubeConfig();
    config.loadFromFile(apiserver.kubeconfigPath);
    const objects = KubernetesObjectApi.makeApiClient(config);
    kubectlApply(apiserver.kubeconfigPath, readFileSync(CRD_FILE, 'utf8'), 'pelita-bench');
    await waitFor(
      async () => {
        await objects.list('pelita.io/v1alpha1', 'PlatformInstall', 'default');
        return true;
      },
      { what: 'the PlatformInstall CRD served', timeoutMs: 30_000, intervalMs: 100 },
    );
    return {
      kubeconfigPath: apiserver.kubeconfigPath,
      objects,
      async createNamespace(name) {
        await objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      },
      apply: (object, fieldManager) =>
        objects.patch(
          object,
          undefined,
          undefined,
          fieldManager,
          true,
          PatchStrategy.ServerSideApply,
        ),
      stop: () => apiserver.stop(),
    };
  } catch (err) {
    await apiserver.stop();
    throw err;
  }
}

/** `<namespace>/<kind>/<name>`: one key for an object of any kind. */
export function objectKey(object: KubernetesObject, kind = object.kind ?? ''): string {
  return `${object.metadata?.namespace ?? ''}/${kind}/${object.metadata?.name ?? ''}`;
}

type WatchedInstall = KubernetesObject & {
  status?: {
    observedGeneration?: number;
    conditions?: Array<{ type: string; status: string }>;
  };
};

interface Waiter {
  done: () => boolean;
  resolve: (at: number) => void;
  reject: (err: Error) => void;
}

/**
 * What exists, fed by watches: a condition is checked on every event, and its waiter gets the
 * event's arrival time, so a measurement ends when the API said so, not at the next poll.
 */
export class ClusterView {
  private readonly present = new Set<string>();
  /** `<namespace>/<name>` of every PlatformInstall whose status reflects its generation. */
  private readonly observed = new Set<string>();
  /** `<namespace>/<name>` of every PlatformInstall whose Ready condition is True. */
  private readonly ready = new Set<string>();
  /** How many of `present` and of `observed` are in each namespace: a check over thousands of
   * installs costs one lookup per event, not one per child. */
  private readonly presentCount = new Map<string, number>();
  private readonly observedCount = new Map<string, number>();
  private readonly waiters = new Set<Waiter>();
  private readonly watches: AbortController[] = [];
  private failure: Error | undefined;
  private stopping = false;

  constructor(private readonly kubeconfigPath: string) {}

  /** Watches `kinds` (objects with `labelSelector`) and PlatformInstalls in every namespace. */
  async start(kinds: readonly WatchedKind[], labelSelector: string): Promise<void> {
    const config = new KubeConfig();
    config.loadFromFile(this.kubeconfigPath);
    const watch = new Watch(config);
    // A watch ends only when stopped or lost; a lost one would stall every waiter, so fail them.
    const stopped = (err: unknown) => {
      if (this.stopping) return;
      this.failure = new Error(`a watch ended: ${errorMessage(err)}`);
      for (const waiter of this.waiters) waiter.reject(this.failure);
      this.waiters.clear();
    };
    for (const kind of kinds) {
      this.watches.push(
        await watch.watch(
          collectionPath(kind),
          { labelSelector },
          (phase, object: KubernetesObject) => {
            if (phase === 'ERROR') return stopped(object); // e.g. 410 Gone: the view is stale
            const key = objectKey(object, kind.kind);
            const namespace = object.metadata?.namespace ?? '';
            if (phase === 'DELETED') change(this.present, this.presentCount, key, namespace, false);
            else change(this.present, this.presentCount, key, namespace, true);
            this.check();
          },
          stopped,
        ),
      );
    }
    this.watches.push(
      await watch.watch(
        collectionPath(PLATFORM_INSTALL),
        {},
        (phase, install: WatchedInstall) => {
          if (phase === 'ERROR') return stopped(install);
          const namespace = install.metadata?.namespace ?? '';
          const key = `${namespace}/${install.metadata?.name}`;
          const generation = install.metadata?.generation ?? 1;
          const observed =
            phase !== 'DELETED' && (install.status?.observedGeneration ?? 0) >= generation;
          change(this.observed, this.observedCount, key, namespace, observed);
          const ready = install.status?.conditions?.some(
            (c) => c.type === 'Ready' && c.status === 'True',
          );
          if (phase !== 'DELETED' && ready) this.ready.add(key);
          else this.ready.delete(key);
          this.check();
        },
        stopped,
      ),
    );
  }

  has(keys: readonly string[]): boolean {
    return keys.every((key) => this.present.has(key));
  }

  isObserved(namespace: string, name: string): boolean {
    return this.observed.has(`${namespace}/${name}`);
  }

  /** How many PlatformInstalls are `Ready=True`. */
  readyCount(): number {
    return this.ready.size;
  }

  /** How many watched children exist in `namespace`. */
  presentIn(namespace: string): number {
    return this.presentCount.get(namespace) ?? 0;
  }

  /** How many PlatformInstalls of `namespace` have a status reflecting their generation. */
  observedIn(namespace: string): number {
    return this.observedCount.get(namespace) ?? 0;
  }

  /** Resolves with the `performance.now()` of the event that made `done()` true. */
  until(done: () => boolean, what: string, timeoutMs: number): Promise<number> {
    if (done()) return Promise.resolve(performance.now());
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`${what}: not within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter: Waiter = {
        done,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      this.waiters.add(waiter);
    });
  }

  stop(): void {
    this.stopping = true;
    for (const watch of this.watches) watch.abort();
  }

  private check(): void {
    const at = performance.now();
    for (const waiter of this.waiters) {
      if (!waiter.done()) continue;
      this.waiters.delete(waiter);
      waiter.resolve(at);
    }
  }
}

/** Adds `key` to or removes it from `set`, keeping the count of its namespace. */
function change(
  set: Set<string>,
  counts: Map<string, number>,
  key: string,
  namespace: string,
  member: boolean,
): void {
  if (member === set.has(key)) return;
  if (member) set.add(key);
  else set.delete(key);
  counts.set(namespace, (counts.get(namespace) ?? 0) + (member ? 1 : -1));
}
