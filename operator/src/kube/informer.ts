/**
 * A cache of one kind kept current by list + watch (client-node's ListWatch), which restarts
 * itself after a watch error or a lost connection, with exponential backoff: ListWatch alone
 * stops for good on the first error (e.g. while the apiserver restarts). Objects are trimmed to
 * what a reconcile reads before the cache stores them (cache-trim.ts), and filed by their
 * controller's uid (owner-index.ts).
 */
import {
  ListWatch,
  Watch,
  type KubeConfig,
  type KubernetesObject,
  type ObjectCache,
} from '@kubernetes/client-node';
import type { Logger } from '@pelita/kit';
import type { OperatorMetrics } from '../metrics';
import { trimForCache } from './cache-trim';
import { describeApiError, type KubeClient } from './client';
import { collectionPath, type WatchedKind } from './kinds';
import { OwnerIndex } from './owner-index';

export interface InformerOptions {
  client: KubeClient;
  kind: WatchedKind;
  /** Watch one namespace; all namespaces when undefined. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Called for every add, update and delete, also those replayed by a re-list. */
  onChange: (object: KubernetesObject) => void;
  /** Counts the events by kind (after the cache holds them, before onChange). */
  metrics?: Pick<OperatorMetrics, 'watchEvents'>;
  logger: Logger;
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

export interface Informer {
  readonly kind: WatchedKind;
  readonly cache: ObjectCache<KubernetesObject>;
  /** The cached objects whose controller is `ownerUid`, in `namespace`. */
  controlledBy(ownerUid: string, namespace: string): KubernetesObject[];
  /** Resolves once the first list has filled the cache (retried until it does). */
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

export function startInformer(options: InformerOptions): Informer {
  const { client, kind, namespace, labelSelector, fieldSelector, onChange, logger } = options;
  const minBackoffMs = options.minBackoffMs ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  const log = logger.child({ kind: kind.kind });
  let markSynced = () => {};
  const synced = new Promise<void>((resolve) => (markSynced = resolve));
  let stopped = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;

  const trim = (object: KubernetesObject) => trimForCache(kind.kind, object);
  const listFn = async () => {
    const list = await client.list(kind, namespace, { labelSelector, fieldSelector }, trim);
    markSynced();
    failures = 0;
    return list;
  };
  const informer = new ListWatch<KubernetesObject>(
    collectionPath(kind, namespace),
    new TrimmingWatch(client.config, trim),
    listFn,
    false,
    labelSelector,
    fieldSelector,
  );
  const owners = new OwnerIndex();
  const changed = (object: KubernetesObject) => {
    options.metrics?.watchEvents.inc({ kind: kind.kind });
    onChange(object);
  };
  informer.on('add', (object) => {
    owners.put(object);
    changed(object);
  });
  informer.on('update', (object) => {
    owners.put(object);
    changed(object);
  });
  informer.on('delete', (object) => {
    owners.remove(object);
    changed(object);
  });
  informer.on('connect', () => client.count('watch'));
  informer.on('error', (err: unknown) => {
    if (stopped) return;
    failures += 1;
    const delayMs = Math.min(maxBackoffMs, minBackoffMs * 2 ** (failures - 1));
    log.warn({ err: describeApiError(err), delayMs }, 'watch failed; restarting');
    retry = setTimeout(() => {
      retry = undefined;
      if (!stopped) informer.start().catch(() => undefined); // failures arrive as 'error'
    }, delayMs);
  });

  // A failing first list arrives as 'error' and is retried like any other failure.
  informer.start().catch(() => undefined);
  return {
    kind,
    cache: informer,
    controlledBy: (ownerUid, ns) => owners.controlledBy(ownerUid, ns),
    synced,
    async stop() {
      stopped = true;
      clearTimeout(retry);
      await informer.stop();
    },
  };
}

/** client-node's Watch, handing each object to `trim` before the ListWatch caches it. */
class TrimmingWatch extends Watch {
  constructor(
    config: KubeConfig,
    private readonly trim: (object: KubernetesObject) => KubernetesObject,
  ) {
    super(config);
  }

  override watch(...[path, query, callback, done]: Parameters<Watch['watch']>) {
    return super.watch(
      path,
      query,
      // ERROR carries a Status, BOOKMARK only a resourceVersion: neither is an object to cache.
      (phase, object: KubernetesObject, event?: unknown) =>
        callback(
          phase,
          phase === 'ERROR' || phase === 'BOOKMARK' ? object : this.trim(object),
          event,
        ),
      done,
    );
  }
}
