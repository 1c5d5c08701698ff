/**
 * One reconcile of one PlatformInstall, level-based: render the whole desired set, apply what is
 * missing or drifted, delete owned children no longer desired, then write the status observed
 * and emit Events for conditions that flipped. Running it twice in a row changes nothing.
 */
import type { CoreV1Event, KubernetesObject } from '@kubernetes/client-node';
import { errorMessage, type Logger } from '@pelita/kit';
import {
  API_VERSION,
  GROUP,
  KIND,
  PLURAL,
  VERSION,
  parseSpec,
  type Condition,
  type PlatformInstall,
  type PlatformInstallSpec,
  type PlatformInstallStatus,
} from '../crd/platform-install';
import { CATALOG } from '../service-catalog';
import { describeApiError, FIELD_MANAGER, type KubeClient } from '../kube/client';
import { DEPLOYMENT, kindKey, SERVICE_MONITOR, STATEFUL_SET } from '../kube/kinds';
import { childName, renderDesired, type PolicyFiles } from '../render';
import { enabledServices } from '../render/enabled-services';
import { disallowedImages } from '../render/image-policy';
import { platformSecretName } from '../render/platform-secret';
import type { JsonPatchOp } from './added-fields';
import { configMapsReadBy } from './config-dependencies';
import {
  addFinalizer,
  DATA_FINALIZER,
  finalizeInstall,
  hasDataFinalizer,
} from './install-deletion';
import { kindOf, plan, refKey, type LiveView } from './plan';
import {
  ensurePlatformSecret,
  missingPlatformKeys,
  type PlatformSecretState,
} from './platform-secret';
import {
  computeStatus,
  deletionStatus,
  statusChanged,
  transitions,
  type Problem,
  type WorkloadState,
} from './status';

/** `pelita.io/paused: "true"` stops changes to the children; status is still reported. */
const PAUSE_ANNOTATION = 'pelita.io/paused';

/**
 * What the reconciler reads: the informers' caches. childKinds() lists the ServiceMonitor kind
 * only while its CRD exists.
 */
export interface ClusterView extends LiveView {
  install(namespace: string, name: string): RawInstall | undefined;
  /** Every PlatformInstall of the cluster, all namespaces (what may share an install's data). */
  allInstalls(): Promise<readonly RawInstall[]>;
  serviceMonitorsAvailable(): boolean;
}

export interface ReconcilerOptions {
  client: KubeClient;
  view: ClusterView;
  policies: PolicyFiles;
  logger: Logger;
  /** Who reports Events (the pod name). */
  identity: string;
  /** Image prefixes installs may use; empty or unset allows any. */
  allowedImageRegistries?: readonly string[];
  now?: () => Date;
}

/** A PlatformInstall as stored: the spec not yet parsed (an older or hand-edited one may be invalid). */
export type RawInstall = KubernetesObject & { spec?: unknown; status?: PlatformInstallStatus };

export class Reconciler {
  private readonly now: () => Date;
  /**
   * The status last written per install (by uid). The cache may not show our own write yet, and
   * comparing with it would write again, move transition times and double Events. This process
   * is the only status writer while it leads (losing the lease ends it), so its last write is the
   * truth.
   */
  private readonly written = new Map<string, { uid: string; status: PlatformInstallStatus }>();

  constructor(private readonly options: ReconcilerOptions) {
    this.now = options.now ?? (() => new Date());
  }

  async reconcile(key: string): Promise<void> {
    const [namespace = '', name = ''] = key.split('/');
    const raw = this.options.view.install(namespace, name);
    // Deleted: the garbage collector removes the children through their owner references.
    if (!raw || (raw.metadata?.deletionTimestamp && !hasDataFinalizer(raw))) {
      this.written.delete(key);
      return;
    }
    if (raw.metadata?.deletionTimestamp) return this.finalize(key, raw);
    const metadata = {
      name,
      namespace,
      uid: raw.metadata?.uid ?? '',
      generation: raw.metadata?.generation ?? 0,
      annotations: raw.metadata?.annotations,
    };
    const paused = raw.metadata?.annotations?.[PAUSE_ANNOTATION] === 'true';
    const problems: Problem[] = [];
    // Installs from before the finalizer get it too, at their next reconcile.
    if (!hasDataFinalizer(raw)) {
      await recordFailure(problems, `adding the finalizer ${DATA_FINALIZER}`, () =>
        addFinalizer(this.options.client, raw),
      );
    }
    let spec: PlatformInstallSpec | undefined;
    try {
      spec = parseSpec(raw.spec);
    } catch (err) {
      problems.push({ reason: 'InvalidSpec', message: errorMessage(err) });
    }

    const install: PlatformInstall | undefined = spec && {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata,
      spec,
    };
    const applied = new Map<string, KubernetesObject>();
    const denied = install
      ? disallowedImages(install, this.options.allowedImageRegistries ?? [])
      : [];
    if (denied.length > 0) {
      problems.push({
        reason: 'InvalidSpec',
        message: `images outside the allowed registries (ALLOWED_IMAGE_REGISTRIES): ${denied.join(', ')}`,
      });
    } else if (install && !paused) problems.push(...(await this.converge(install, applied)));

    const workloads = install ? this.workloads(install, applied) : [];
    const previous = this.previousStatus(key, raw);
    const status = computeStatus({
      generation: metadata.generation,
      previous,
      workloads,
      problems,
      paused,
      now: this.now(),
    });
    await this.writeStatus(key, raw, previous, status);
    const failed = problems.filter((p) => p.reason === 'ApplyFailed');
    if (failed.length > 0) throw new Error(failed.map((p) => p.message).join('; '));
  }

  /** Writes the status when it changed, and records an Event per condition that flipped. */
  private async writeStatus(
    key: string,
    raw: RawInstall,
    previous: PlatformInstallStatus | undefined,
    status: PlatformInstallStatus,
  ): Promise<void> {
    if (!statusChanged(previous, status)) return;
    const { name = '', namespace = '', uid = '' } = raw.metadata ?? {};
    await this.options.client.applyStatus(
      { group: GROUP, version: VERSION, plural: PLURAL, kind: KIND },
      { name, namespace },
      status,
    );
    this.written.set(key, { uid, status });
    await this.emitEvents(raw, transitions(previous, status));
  }

  private previousStatus(key: string, raw: RawInstall): PlatformInstallStatus | undefined {
    const last = this.written.get(key);
    return last?.uid === raw.metadata?.uid ? last?.status : raw.status;
  }

  /**
   * An install being deleted that still has the finalizer: its deletionPolicy carried out
   * (install-deletion.ts), its progress and failures written as its status.
   */
  private async finalize(key: string, raw: RawInstall): Promise<void> {
    const { client, view, logger } = this.options;
    const finished = await finalizeInstall(raw, {
      client,
      view,
      logger,
      event: (type, reason, message) => this.event(raw, type, reason, message),
      report: (progress, failures) => {
        // Each report against the last written: a second one must not repeat the first's Events.
        const previous = this.previousStatus(key, raw);
        return this.writeStatus(
          key,
          raw,
          previous,
          deletionStatus({
            generation: raw.metadata?.generation ?? 0,
            previous,
            progress,
            failures,
            now: this.now(),
          }),
        );
      },
    });
    if (finished) this.written.delete(key);
  }

  /** Applies the desired children that differ from the cluster and prunes the undesired ones. */
  private async converge(
    install: PlatformInstall,
    applied: Map<string, KubernetesObject>,
  ): Promise<Problem[]> {
    const { client, view, policies, logger } = this.options;
    const problems: Problem[] = [];
    // Before anything is applied: the pods refer to the platform Secret's keys and the
    // ConfigMaps carry its public key, so without it the desired state is not known.
    const secretName = platformSecretName(install);
    let secret: PlatformSecretState;
    try {
      secret = await ensurePlatformSecret(client, install);
    } catch (err) {
      return [
        {
          reason: 'ApplyFailed',
          message: `platform Secret ${secretName}: ${describeApiError(err)}`,
        },
      ];
    }
    let desired = renderDesired({
      install: {
        ...install,
        platformKeys: { jwtPublicKey: secret.jwtPublicKey, version: secret.version },
      },
      policies,
    });
    const missing = missingPlatformKeys(desired, secretName, secret.keys);
    if (missing.length > 0) {
      problems.push({
        reason: 'PlatformSecretIncomplete',
        message:
          `Secret ${secretName} lacks ${missing.join(', ')}: pods referring to them cannot start; ` +
          'add them (the operator never changes an existing Secret)',
      });
    }
    if (!view.serviceMonitorsAvailable() && desired.some(isServiceMonitor)) {
      desired = desired.filter((object) => !isServiceMonitor(object));
      problems.push({
        reason: 'ServiceMonitorCRDMissing',
        message:
          'observability.serviceMonitor.enabled is true but the ServiceMonitor CRD ' +
          '(monitoring.coreos.com/v1) is not installed; install the Prometheus Operator or disable it',
      });
    }

    const { namespace, name } = install.metadata;
    const decided = plan({ desired, namespace, ownerUid: install.metadata.uid, view });
    const scope = { install: `${namespace}/${name}` };
    const failedConfigMaps = new Set<string>();
    for (const object of decided.apply) {
      const kind = kindOf(object);
      const objectName = object.metadata?.name ?? '';
      const waitsFor = configMapsReadBy(object).filter((name) => failedConfigMaps.has(name));
      if (waitsFor.length > 0) {
        problems.push({
          reason: 'ApplyFailed',
          message: `${kind.kind} ${objectName}: held back until ConfigMap ${waitsFor.join(', ')} is applied`,
        });
        continue;
      }
      const ok = await recordFailure(problems, `${kind.kind} ${objectName}`, async () => {
        applied.set(refKey(kind, objectName), await client.apply(object));
        logger.debug({ ...scope, kind: kind.kind, name: objectName }, 'applied');
      });
      if (!ok && kind.kind === 'ConfigMap') failedConfigMaps.add(objectName);
    }
    // After the applies, which never touch the fields another manager added.
    for (const { kind, name: childName, patch } of decided.trim) {
      await recordFailure(problems, `${kind.kind} ${childName}`, async () => {
        await client.patchJson({ ...kind, name: childName, namespace }, patch);
        logger.info(
          { ...scope, kind: kind.kind, name: childName, removed: removedPaths(patch) },
          'removed fields added by someone else',
        );
      });
    }
    for (const { kind, name: childName, uid } of decided.prune) {
      await recordFailure(problems, `deleting ${kind.kind} ${childName}`, async () => {
        await client.remove({ ...kind, name: childName, namespace, uid });
        logger.info({ ...scope, kind: kind.kind, name: childName }, 'deleted');
      });
    }
    return problems;
  }

  private workloads(
    install: PlatformInstall,
    applied: Map<string, KubernetesObject>,
  ): WorkloadState[] {
    const { spec, metadata } = install;
    return enabledServices(install).map((service) => {
      const kind = CATALOG[service].workload === 'StatefulSet' ? STATEFUL_SET : DEPLOYMENT;
      const objectName = childName(install, service);
      // The cache may not have seen an object just applied; the apply's answer is newer.
      const live =
        this.options.view.live(kind, metadata.namespace, objectName) ??
        applied.get(refKey(kind, objectName));
      // Under an autoscaler the live replica count is the desired one.
      const settings = spec.services[service];
      const desired = settings.autoscaling.enabled
        ? ((live as { spec?: { replicas?: number } } | undefined)?.spec?.replicas ?? 1)
        : settings.replicas;
      return { service, desired, live };
    });
  }

  private async emitEvents(install: RawInstall, changed: Condition[]): Promise<void> {
    for (const condition of changed) {
      const warning =
        (condition.type === 'Ready' && condition.status !== 'True') ||
        (condition.type === 'Degraded' && condition.status === 'True');
      await this.event(
        install,
        warning ? 'Warning' : 'Normal',
        condition.reason,
        `${condition.type}=${condition.status}${condition.message ? `: ${condition.message}` : ''}`,
      );
    }
  }

  /** Records one Event about the install; failing to is logged, never fails the reconcile. */
  private async event(
    install: RawInstall,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): Promise<void> {
    const { client, logger, identity } = this.options;
    const namespace = install.metadata?.namespace ?? '';
    const now = this.now();
    const event: CoreV1Event = {
      metadata: { generateName: `${install.metadata?.name}.`, namespace },
      involvedObject: {
        apiVersion: API_VERSION,
        kind: KIND,
        name: install.metadata?.name,
        namespace,
        uid: install.metadata?.uid,
      },
      type,
      reason,
      message: message.slice(0, 1024),
      source: { component: FIELD_MANAGER },
      reportingComponent: FIELD_MANAGER,
      reportingInstance: identity,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    };
    // An Event is a courtesy: failing to record one must not fail the reconcile.
    await client
      .createEvent(namespace, event)
      .catch((err: unknown) =>
        logger.warn({ err: describeApiError(err) }, 'could not record an Event'),
      );
  }
}

/** Runs one write to the API; its failure becomes an ApplyFailed problem and the rest go on. */
/** Runs `write`; a failure becomes a problem of the status. Whether it succeeded. */
async function recordFailure(
  problems: Problem[],
  what: string,
  write: () => Promise<void>,
): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    problems.push({ reason: 'ApplyFailed', message: `${what}: ${describeApiError(err)}` });
    return false;
  }
}

function removedPaths(patch: readonly JsonPatchOp[]): string[] {
  return patch.flatMap((op) => (op.op === 'remove' ? [op.path] : []));
}

function isServiceMonitor(object: KubernetesObject): boolean {
  return kindKey(kindOf(object)) === kindKey(SERVICE_MONITOR);
}
