import type { V1Deployment } from '@kubernetes/client-node';
import {
  computeStatus,
  statusChanged,
  transitions,
  type StatusInput,
  type WorkloadState,
} from '../../src/controller/status';
import type { PlatformInstallStatus } from '../../src/crd/platform-install';

const T0 = new Date('2026-11-22T10:00:00.123Z');
const T1 = new Date('2026-11-22T10:05:00.000Z');

function deployment(
  replicas: number,
  status: { ready?: number; updated?: number; current?: number; observed?: number },
  generation = 2,
): V1Deployment {
  return {
    metadata: { generation },
    spec: { replicas, selector: {}, template: {} },
    status: {
      readyReplicas: status.ready ?? 0,
      updatedReplicas: status.updated ?? replicas,
      replicas: status.current ?? replicas,
      observedGeneration: status.observed ?? generation,
    },
  };
}

const ready = (service: string, n = 1): WorkloadState => ({
  service,
  desired: n,
  live: deployment(n, { ready: n }),
});

function input(overrides: Partial<StatusInput>): StatusInput {
  return {
    generation: 3,
    previous: undefined,
    workloads: [],
    problems: [],
    paused: false,
    now: T0,
    ...overrides,
  };
}

const condition = (status: PlatformInstallStatus, type: string) =>
  status.conditions.find((c) => c.type === type)!;

describe('computeStatus', () => {
  it('is Ready when every workload has rolled out with all replicas ready', () => {
    const status = computeStatus(
      input({ workloads: [ready('http-proxy', 2), ready('summarizer')] }),
    );
    expect(status.observedGeneration).toBe(3);
    expect(status.services).toEqual({
      'http-proxy': { ready: 2, desired: 2 },
      summarizer: { ready: 1, desired: 1 },
    });
    expect(condition(status, 'Ready')).toMatchObject({
      status: 'True',
      reason: 'AllServicesReady',
    });
    expect(condition(status, 'Progressing')).toMatchObject({
      status: 'False',
      reason: 'RolloutComplete',
    });
    expect(condition(status, 'Degraded')).toMatchObject({ status: 'False', reason: 'AsExpected' });
    for (const c of status.conditions) {
      expect(c.observedGeneration).toBe(3);
      expect(c.reason).not.toBe('');
      expect(c.lastTransitionTime).toBe('2026-11-22T10:00:00Z');
    }
  });

  it('summarises ready/desired services for the printer column', () => {
    const lost = { service: 'user-service', desired: 3, live: deployment(3, { ready: 1 }) };
    const missing = { service: 'summarizer', desired: 1, live: undefined };
    const status = computeStatus(input({ workloads: [ready('http-proxy', 2), lost, missing] }));
    expect(status.readyServices).toBe('1/3');
    expect(computeStatus(input({ workloads: [] })).readyServices).toBe('0/0');
  });

  it('is Progressing, not Degraded, while a workload has not acted on its latest spec', () => {
    const notObserved = {
      service: 'db-proxy',
      desired: 1,
      live: deployment(1, { ready: 1, observed: 1 }),
    };
    const missing = { service: 'summarizer', desired: 1, live: undefined };
    const surging = {
      service: 'http-proxy',
      desired: 2,
      live: deployment(2, { ready: 2, current: 3 }),
    };
    const status = computeStatus(input({ workloads: [notObserved, missing, surging] }));
    expect(condition(status, 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'RollingOut',
    });
    expect(condition(status, 'Progressing').message).toContain('db-proxy 1/1');
    expect(condition(status, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ServicesNotReady',
    });
    expect(condition(status, 'Degraded').status).toBe('False');
  });

  it('is Degraded when a rolled-out workload has lost ready replicas', () => {
    const lost = { service: 'user-service', desired: 3, live: deployment(3, { ready: 1 }) };
    const status = computeStatus(input({ workloads: [ready('http-proxy'), lost] }));
    expect(condition(status, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'ReplicasUnavailable',
      message: 'replicas unavailable: user-service 1/3',
    });
    expect(condition(status, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ServicesNotReady',
    });
    expect(condition(status, 'Progressing').status).toBe('False');
  });

  it('reports a failed apply as Degraded and not Ready, whatever the workloads say', () => {
    const problems = [{ reason: 'ApplyFailed' as const, message: 'Deployment acme-db-proxy: 403' }];
    const status = computeStatus(input({ workloads: [ready('db-proxy')], problems }));
    expect(condition(status, 'Ready')).toMatchObject({ status: 'False', reason: 'ApplyFailed' });
    expect(condition(status, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'ApplyFailed',
      message: 'Deployment acme-db-proxy: 403',
    });
  });

  it('keeps the install Ready but Degraded when only the ServiceMonitor CRD is missing', () => {
    const problems = [{ reason: 'ServiceMonitorCRDMissing' as const, message: 'no CRD' }];
    const status = computeStatus(input({ workloads: [ready('db-proxy')], problems }));
    expect(condition(status, 'Ready').status).toBe('True');
    expect(condition(status, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'ServiceMonitorCRDMissing',
    });
  });

  it('says Paused in Progressing while the pause annotation is set', () => {
    const status = computeStatus(input({ workloads: [ready('db-proxy')], paused: true }));
    expect(condition(status, 'Progressing')).toMatchObject({ status: 'False', reason: 'Paused' });
  });

  it('moves lastTransitionTime only for conditions whose status changed', () => {
    const lost = { service: 'db-proxy', desired: 2, live: deployment(2, { ready: 1 }) };
    const before = computeStatus(input({ workloads: [ready('db-proxy', 2)] }));
    const after = computeStatus(input({ workloads: [lost], previous: before, now: T1 }));
    expect(condition(after, 'Ready').lastTransitionTime).toBe('2026-11-22T10:05:00Z');
    expect(condition(after, 'Degraded').lastTransitionTime).toBe('2026-11-22T10:05:00Z');
    expect(condition(after, 'Progressing').lastTransitionTime).toBe('2026-11-22T10:00:00Z');
    expect(
      transitions(before, after)
        .map((c) => c.type)
        .sort(),
    ).toEqual(['Degraded', 'Ready']);
    expect(statusChanged(before, after)).toBe(true);

    const again = computeStatus(input({ workloads: [lost], previous: after, now: T1 }));
    expect(transitions(after, again)).toEqual([]);
    expect(statusChanged(after, again)).toBe(false);
  });

  it('treats a status read back from the API (keys sorted) as unchanged', () => {
    const status = computeStatus(input({ workloads: [ready('db-proxy')] }));
    const sortKeys = (_key: string, value: unknown): unknown =>
      value && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)))
        : value;
    const readBack = JSON.parse(JSON.stringify(status, sortKeys)) as PlatformInstallStatus;
    expect(JSON.stringify(readBack)).not.toBe(JSON.stringify(status));
    expect(statusChanged(readBack, status)).toBe(false);
  });
});
