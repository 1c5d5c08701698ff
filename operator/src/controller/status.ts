/**
 * The install's status from what the cluster reports: per-service ready/desired counts and the
 * conditions Ready, Progressing and Degraded, following the API conventions (reason always set,
 * lastTransitionTime moved only when the status flips, observedGeneration on each).
 */
import { isDeepStrictEqual } from 'node:util';
import type { V1Deployment, V1StatefulSet } from '@kubernetes/client-node';
import type { Condition, PlatformInstallStatus } from '../crd/platform-install';

/** A Deployment or StatefulSet as the cache holds it (the fields read here are on both). */
export type Workload = V1Deployment | V1StatefulSet;

export interface WorkloadState {
  service: string;
  desired: number;
  /** undefined until the cache has seen the object. */
  live: Workload | undefined;
}

/** Why the install cannot be fully reconciled; each makes Degraded true. */
export interface Problem {
  reason: 'InvalidSpec' | 'ApplyFailed' | 'ServiceMonitorCRDMissing' | 'PlatformSecretIncomplete';
  message: string;
}

export interface StatusInput {
  generation: number;
  previous: PlatformInstallStatus | undefined;
  workloads: WorkloadState[];
  problems: Problem[];
  paused: boolean;
  now: Date;
}

interface Rollout {
  service: string;
  ready: number;
  desired: number;
  /** The workload controller has acted on the latest spec and no old pods remain. */
  rolledOut: boolean;
}

function rollout({ service, desired, live }: WorkloadState): Rollout {
  const status = live?.status;
  const ready = status?.readyReplicas ?? 0;
  const rolledOut =
    live !== undefined &&
    (status?.observedGeneration ?? 0) >= (live.metadata?.generation ?? 1) &&
    (status?.updatedReplicas ?? 0) >= desired &&
    (status?.replicas ?? 0) === desired;
  return { service, ready, desired, rolledOut };
}

const list = (rollouts: Rollout[]) =>
  rollouts.map((r) => `${r.service} ${r.ready}/${r.desired}`).join(', ');

export function computeStatus(input: StatusInput): PlatformInstallStatus {
  const { generation, problems, paused } = input;
  const rollouts = input.workloads.map(rollout);
  const inProgress = rollouts.filter((r) => !r.rolledOut);
  const unavailable = rollouts.filter((r) => r.rolledOut && r.ready < r.desired);
  const notReady = rollouts.filter((r) => r.ready < r.desired || !r.rolledOut);

  const progressing: Omit<Condition, 'lastTransitionTime'> = paused
    ? {
        type: 'Progressing',
        status: 'False',
        reason: 'Paused',
        message: 'reconcile paused by annotation',
      }
    : inProgress.length > 0
      ? {
          type: 'Progressing',
          status: 'True',
          reason: 'RollingOut',
          message: `rolling out: ${list(inProgress)}`,
        }
      : {
          type: 'Progressing',
          status: 'False',
          reason: 'RolloutComplete',
          message: 'every service runs the desired spec',
        };

  const [problem] = problems;
  const degraded: Omit<Condition, 'lastTransitionTime'> = problem
    ? {
        type: 'Degraded',
        status: 'True',
        reason: problem.reason,
        message: problems.map((p) => p.message).join('; '),
      }
    : unavailable.length > 0
      ? {
          type: 'Degraded',
          status: 'True',
          reason: 'ReplicasUnavailable',
          message: `replicas unavailable: ${list(unavailable)}`,
        }
      : { type: 'Degraded', status: 'False', reason: 'AsExpected', message: '' };

  const ready: Omit<Condition, 'lastTransitionTime'> = problems.some(
    (p) => p.reason !== 'ServiceMonitorCRDMissing',
  )
    ? {
        type: 'Ready',
        status: 'False',
        reason: problem?.reason ?? 'ApplyFailed',
        message: degraded.message,
      }
    : notReady.length > 0
      ? {
          type: 'Ready',
          status: 'False',
          reason: 'ServicesNotReady',
          message: `not ready: ${list(notReady)}`,
        }
      : {
          type: 'Ready',
          status: 'True',
          reason: 'AllServicesReady',
          message: `${rollouts.length} services ready`,
        };

  const services: Record<string, { ready: number; desired: number }> = {};
  for (const r of rollouts) services[r.service] = { ready: r.ready, desired: r.desired };

  return {
    observedGeneration: generation,
    conditions: [ready, progressing, degraded].map((condition) =>
      withTransitionTime(
        { ...condition, observedGeneration: generation },
        input.previous,
        input.now,
      ),
    ),
    services,
    readyServices: `${rollouts.filter((r) => r.ready >= r.desired).length}/${rollouts.length}`,
  };
}

export interface DeletionStatusInput {
  generation: number;
  previous: PlatformInstallStatus | undefined;
  /** What is being done (deleted, kept because shared): the Progressing message. */
  progress: string;
  /** The servers that failed, each with its error; none while all goes well. */
  failures: string[];
  now: Date;
}

/**
 * The status of an install being deleted with `deletionPolicy: Delete`: not Ready, Progressing
 * while its data is deleted, Degraded (`DataDeletionFailed`, naming the servers) while a server
 * fails. The per-service counts stay as last reported: the pods are going anyway.
 */
export function deletionStatus(input: DeletionStatusInput): PlatformInstallStatus {
  const { generation, previous, progress, failures, now } = input;
  const failed = failures.join('; ');
  const conditions: Array<Omit<Condition, 'lastTransitionTime'>> = [
    {
      type: 'Ready',
      status: 'False',
      reason: 'Deleting',
      message: 'the install is being deleted (deletionPolicy Delete)',
    },
    { type: 'Progressing', status: 'True', reason: 'DeletingData', message: progress },
    failures.length > 0
      ? { type: 'Degraded', status: 'True', reason: 'DataDeletionFailed', message: failed }
      : { type: 'Degraded', status: 'False', reason: 'AsExpected', message: '' },
  ];
  return {
    ...previous,
    observedGeneration: generation,
    conditions: conditions.map((condition) =>
      withTransitionTime({ ...condition, observedGeneration: generation }, previous, now),
    ),
  };
}

/** Keeps the previous lastTransitionTime unless the condition's status changed. */
function withTransitionTime(
  condition: Omit<Condition, 'lastTransitionTime'>,
  previous: PlatformInstallStatus | undefined,
  now: Date,
): Condition {
  const before = previous?.conditions.find((c) => c.type === condition.type);
  const lastTransitionTime =
    before && before.status === condition.status
      ? before.lastTransitionTime
      : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { ...condition, lastTransitionTime };
}

/** Conditions whose status changed between two statuses: what Events are emitted for. */
export function transitions(
  previous: PlatformInstallStatus | undefined,
  next: PlatformInstallStatus,
): Condition[] {
  return next.conditions.filter((condition) => {
    const before = previous?.conditions.find((c) => c.type === condition.type);
    return before?.status !== condition.status;
  });
}

/** Whether writing `next` would change what the API holds (key order aside). */
export function statusChanged(
  previous: PlatformInstallStatus | undefined,
  next: PlatformInstallStatus,
): boolean {
  return !isDeepStrictEqual(previous ?? {}, next);
}

export function readyStatus(status: PlatformInstallStatus | undefined): Condition['status'] {
  return status?.conditions.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
}
