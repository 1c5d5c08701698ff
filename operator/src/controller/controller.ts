/**
 * The controller: informers on PlatformInstalls and every child kind feed one work queue of
 * install keys (`namespace/name`); workers run the reconciler. A child's event queues its owner,
 * so a deleted or edited child is put back. The ServiceMonitor kind is watched only while its CRD
 * exists (a CRD informer notices it come and go).
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from '@pelita/kit';
import { API_VERSION, KIND } from '../crd/platform-install';
import { describeApiError, type KubeClient } from '../kube/client';
import { startInformer, type Informer } from '../kube/informer';
import {
  CHILD_KINDS,
  kindKey,
  PLATFORM_INSTALL,
  SERVICE_MONITOR,
  SERVICE_MONITOR_CRD,
  type KindRef,
  type WatchedKind,
} from '../kube/kinds';
import type { OperatorMetrics } from '../metrics';
import { MANAGED_BY } from '../render/meta';
import type { PolicyFiles } from '../render';
import { Reconciler, type ClusterView, type RawInstall } from './reconciler';
import { readyStatus } from './status';
import { WorkQueue } from './work-queue';

export interface ControllerOptions {
  client: KubeClient;
  logger: Logger;
  metrics: OperatorMetrics;
  policies: PolicyFiles;
  identity: string;
  /** One namespace, or undefined for all. */
  namespace: string | undefined;
  concurrency: number;
  resyncMs: number;
  /** Image prefixes installs may use; empty allows any (render/image-policy.ts). */
  allowedImageRegistries?: readonly string[];
}

const CHILD_SELECTOR = `app.kubernetes.io/managed-by=${MANAGED_BY}`;
/** Spread of the periodic resync, as controller-runtime's: up to 10 % later than asked. */
const RESYNC_JITTER = 0.1;

/**
 * When an install's next periodic resync is due: the installs reconciled together at a start
 * would otherwise come back together every period, a thousand reconciles in one burst.
 */
export function resyncDelay(resyncMs: number, random: () => number = Math.random): number {
  return Math.round(resyncMs * (1 + RESYNC_JITTER * random()));
}

const CRD_KIND: WatchedKind = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
};

export class Controller implements ClusterView {
  private readonly queue: WorkQueue;
  private readonly reconciler: Reconciler;
  private readonly informers = new Map<string, Informer>();
  private installs: Informer | undefined;
  private crds: Informer | undefined;
  private serviceMonitors: Informer | undefined;
  private running = false;

  constructor(private readonly options: ControllerOptions) {
    const { metrics, logger } = options;
    this.reconciler = new Reconciler({ ...options, view: this });
    this.queue = new WorkQueue({
      concurrency: options.concurrency,
      handler: (key) => this.reconcileTimed(key),
      onDepth: (depth) => metrics.queueDepth.set(depth),
      onError: (key, err, retryInMs) =>
        logger.warn({ install: key, err: describeApiError(err), retryInMs }, 'reconcile failed'),
    });
  }

  /** Starts the child informers, waits for their first lists, then watches the installs. */
  async start(): Promise<void> {
    this.running = true;
    const { client, logger, metrics, namespace } = this.options;
    for (const kind of CHILD_KINDS) {
      this.informers.set(
        kindKey(kind),
        startInformer({
          client,
          kind,
          namespace,
          labelSelector: CHILD_SELECTOR,
          logger,
          metrics,
          onChange: (child) => this.enqueueOwner(child),
        }),
      );
    }
    this.crds = startInformer({
      client,
      kind: CRD_KIND,
      fieldSelector: `metadata.name=${SERVICE_MONITOR_CRD}`,
      logger,
      onChange: () => void this.syncServiceMonitorInformer(),
    });
    await Promise.all([...this.informers.values(), this.crds].map((i) => i.synced));
    if (!this.running) return; // stopped while waiting (a first list may retry forever)
    await this.syncServiceMonitorInformer();
    if (!this.running) return;
    // Installs last: their first list queues every install, and a reconcile must find the child
    // caches filled, or it would re-apply children that exist and miss ones to prune.
    this.installs = startInformer({
      client,
      kind: PLATFORM_INSTALL,
      namespace,
      logger,
      metrics,
      onChange: (install) => this.queue.add(keyOf(install)),
    });
    await this.installs.synced;
    logger.info({ namespace: namespace ?? '(all)' }, 'caches synced; reconciling');
  }

  /** Safe while start() still waits for a first list: that wait is abandoned. */
  async stop(): Promise<void> {
    this.running = false;
    await this.queue.stop();
    const all = [...this.informers.values(), this.crds, this.installs, this.serviceMonitors];
    await Promise.all(all.map((informer) => informer?.stop() ?? Promise.resolve()));
  }

  // ClusterView: what the reconciler reads.
  install(namespace: string, name: string): RawInstall | undefined {
    return this.installs?.cache.get(name, namespace);
  }

  /**
   * Watching all namespaces, the cache holds every install; watching one, the others are listed
   * from the API (RBAC: `list` on platforminstalls cluster-wide, see the chart).
   */
  async allInstalls(): Promise<readonly RawInstall[]> {
    if (this.options.namespace === undefined) return this.installs?.cache.list() ?? [];
    const list = await this.options.client.list(PLATFORM_INSTALL, undefined);
    return list.items;
  }

  live(kind: KindRef, namespace: string, name: string): KubernetesObject | undefined {
    return this.informerOf(kind)?.cache.get(name, namespace);
  }

  children(kind: WatchedKind, namespace: string, ownerUid: string): readonly KubernetesObject[] {
    return this.informerOf(kind)?.controlledBy(ownerUid, namespace) ?? [];
  }

  childKinds(): readonly WatchedKind[] {
    return this.serviceMonitors ? [...CHILD_KINDS, SERVICE_MONITOR] : CHILD_KINDS;
  }

  serviceMonitorsAvailable(): boolean {
    return this.serviceMonitors !== undefined;
  }

  private informerOf(kind: KindRef): Informer | undefined {
    if (kindKey(kind) === kindKey(SERVICE_MONITOR)) return this.serviceMonitors;
    return this.informers.get(kindKey(kind));
  }

  private async reconcileTimed(key: string): Promise<void> {
    const { metrics, resyncMs } = this.options;
    const stopTimer = metrics.reconcileDuration.startTimer();
    metrics.activeReconciles.inc();
    try {
      await this.reconciler.reconcile(key);
      metrics.reconcileTotal.inc({ result: 'success' });
    } catch (err) {
      metrics.reconcileTotal.inc({ result: 'error' });
      metrics.reconcileErrors.inc();
      throw err;
    } finally {
      stopTimer();
      metrics.activeReconciles.dec();
      this.countInstalls();
    }
    // A deleted install leaves nothing to resync: its key is dropped with its retry count.
    const [namespace = '', name = ''] = key.split('/');
    if (!this.install(namespace, name)) this.queue.forget(key);
    else if (resyncMs > 0) this.queue.addAfter(key, resyncDelay(resyncMs));
  }

  /**
   * Children carry a controller reference to their install: that names the key to queue. Not
   * before the installs are watched: their first list queues every install anyway, and a key
   * queued earlier ran a reconcile that found no install (one per install at every start).
   */
  private enqueueOwner(child: KubernetesObject): void {
    if (!this.installs) return;
    const owner = child.metadata?.ownerReferences?.find(
      (ref) => ref.controller === true && ref.kind === KIND && ref.apiVersion === API_VERSION,
    );
    if (owner && child.metadata?.namespace) {
      this.queue.add(`${child.metadata.namespace}/${owner.name}`);
    }
  }

  private enqueueAll(): void {
    for (const install of this.installs?.cache.list() ?? []) this.queue.add(keyOf(install));
  }

  /** Starts or stops the ServiceMonitor informer as the CRD appears or goes, then requeues all. */
  private async syncServiceMonitorInformer(): Promise<void> {
    if (!this.running) return;
    const present = (this.crds?.cache.list().length ?? 0) > 0;
    if (present === (this.serviceMonitors !== undefined)) return;
    const { client, logger, metrics, namespace } = this.options;
    if (present) {
      const informer = startInformer({
        client,
        kind: SERVICE_MONITOR,
        namespace,
        labelSelector: CHILD_SELECTOR,
        logger,
        metrics,
        onChange: (child) => this.enqueueOwner(child),
      });
      this.serviceMonitors = informer;
      await informer.synced;
      logger.info('ServiceMonitor CRD present: managing ServiceMonitors');
    } else {
      const informer = this.serviceMonitors;
      this.serviceMonitors = undefined;
      await informer?.stop();
      logger.info('ServiceMonitor CRD absent');
    }
    this.enqueueAll();
  }

  private countInstalls(): void {
    const counts = { True: 0, False: 0, Unknown: 0 };
    for (const install of this.installs?.cache.list() ?? []) {
      counts[readyStatus((install as RawInstall).status)] += 1;
    }
    for (const [ready, value] of Object.entries(counts)) {
      this.options.metrics.installs.set({ ready }, value);
    }
  }
}

function keyOf(object: KubernetesObject): string {
  return `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}
