/**
 * The operator restarted over settled installs, against a private kube-apiserver (no controllers:
 * workload statuses never change there, so a settled install stays settled): it lists, watches,
 * reads each install's platform Secret by name, and writes nothing. Also the list the informers
 * fill their caches with: the API's JSON, page by page.
 */
import { createMetrics } from '@pelita/kit';
import { startKubeApiserver, waitFor, type KubeApiserverProcess } from '@pelita/testenv';
import { KubeClient } from '../../src/kube/client';
import { createOperatorMetrics } from '../../src/metrics';
import {
  apply,
  connect,
  createNamespace,
  installCrd,
  platformInstall,
  readInstall,
  startOperator,
  type Cluster,
  type OperatorProcess,
} from './support';

let apiserver: KubeApiserverProcess;
let cluster: Cluster;
const operators: OperatorProcess[] = [];

beforeAll(async () => {
  apiserver = await startKubeApiserver();
  cluster = connect(apiserver.kubeconfigPath);
  await installCrd(cluster);
});

afterAll(async () => {
  await Promise.all(operators.map((o) => o.kill()));
  await apiserver?.stop();
});

const NETWORK_POLICIES = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  plural: 'networkpolicies',
};
const WRITES = ['apply', 'patch', 'create', 'update', 'delete'];

async function operatorFor(namespace: string): Promise<OperatorProcess> {
  // No leader election: its Lease renewals are writes of their own.
  const operator = await startOperator({
    kubeconfigPath: apiserver.kubeconfigPath,
    namespace,
    env: { LEADER_ELECTION: 'false' },
  });
  operators.push(operator);
  return operator;
}

/** At least `reconciles` done, nothing queued or running, and no further reconcile for 1.5 s. */
async function settled(operator: OperatorProcess, reconciles: number): Promise<void> {
  let last = -1;
  let since = Date.now();
  await waitFor(
    async () => {
      const samples = await operator.metrics();
      const done = samples.get('pelita_operator_reconcile_total{result="success"}') ?? 0;
      const busy =
        (samples.get('pelita_operator_queue_depth') ?? 0) +
        (samples.get('pelita_operator_active_reconciles') ?? 0);
      if (done !== last || busy > 0) {
        last = done;
        since = Date.now();
        return false;
      }
      return done >= reconciles && Date.now() - since >= 1500;
    },
    { what: `${reconciles} reconciles, then quiet`, timeoutMs: 60_000, intervalMs: 100 },
  );
}

/** The operator's requests by verb, of those that change something. */
async function writes(operator: OperatorProcess): Promise<Record<string, number>> {
  const samples = await operator.metrics();
  return Object.fromEntries(
    WRITES.flatMap((verb) => {
      const count = samples.get(`pelita_operator_kube_requests_total{verb="${verb}"}`) ?? 0;
      return count > 0 ? [[verb, count]] : [];
    }),
  );
}

describe('a restart over a settled install', () => {
  it('sends no write: every cached child, NetworkPolicy peers included, matches', async () => {
    const namespace = await createNamespace(cluster, 'op-restart-writes');
    const first = await operatorFor(namespace);
    await apply(cluster, platformInstall(namespace, 'one'));
    await waitFor(
      async () => (await readInstall(cluster, namespace, 'one')).status?.observedGeneration === 1,
      { what: 'the status written', timeoutMs: 30_000 },
    );
    await settled(first, 1);
    expect(await writes(first)).not.toEqual({}); // it did create the children
    expect(await first.stop()).toBe(0);

    const second = await operatorFor(namespace);
    const gets = async () =>
      (await second.metric('pelita_operator_kube_requests_total{verb="get"}')) ?? 0;
    // The positive signal of the install's reconcile: its platform Secret read.
    await waitFor(async () => (await gets()) >= 1, { what: 'the reconcile', timeoutMs: 30_000 });
    await settled(second, 1);
    expect(await writes(second)).toEqual({});
    // Only the informers' lists and watches, and the platform Secret read by name.
    expect(await gets()).toBe(1);
  });
});

describe('KubeClient.list', () => {
  it('returns the API JSON (a NetworkPolicy rule keeps `from`), every page, each item mapped', async () => {
    const namespace = await createNamespace(cluster, 'op-list-pages');
    for (const name of ['a', 'b', 'c']) {
      await cluster.objects.create({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name, namespace },
        spec: {
          podSelector: {},
          // client-node's model names it `_from` and writes `from` on the wire.
          ingress: [{ _from: [{ podSelector: { matchLabels: { app: name } } }] }],
        },
      } as never);
    }
    const metrics = createOperatorMetrics(createMetrics());
    const client = new KubeClient(cluster.config, metrics);
    const seen: string[] = [];
    const list = await client.list(NETWORK_POLICIES, namespace, { pageSize: 2 }, (item) => {
      seen.push(item.metadata?.name ?? '');
      return { ...item, metadata: { ...item.metadata, labels: { mapped: 'yes' } } };
    });
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(list.items.map((item) => item.metadata?.labels)).toEqual([
      { mapped: 'yes' },
      { mapped: 'yes' },
      { mapped: 'yes' },
    ]);
    const rules = list.items.map(
      (item) => (item as { spec?: { ingress?: Array<Record<string, unknown>> } }).spec?.ingress,
    );
    expect(rules[0]).toEqual([{ from: [{ podSelector: { matchLabels: { app: 'a' } } }] }]);
    expect(list.metadata?.resourceVersion).toMatch(/^\d+$/);
    expect((await metrics.kubeRequests.get()).values).toEqual([
      expect.objectContaining({ labels: { verb: 'list' }, value: 2 }),
    ]);

    // An error is client-node's ApiException with the API's status code, as for every other call.
    const monitors = {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'ServiceMonitor',
      plural: 'servicemonitors',
    };
    await expect(client.list(monitors, namespace)).rejects.toMatchObject({ code: 404 });
  });
});
