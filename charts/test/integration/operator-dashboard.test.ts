// Every query of the operator dashboard (operator.json), run against the test environment's
// Prometheus while a real operator (operator/dist, on the test control plane) reconciles a
// PlatformInstall: none may fail, none may come back without a series.
import { randomBytes } from 'node:crypto';
import { waitFor } from '@pelita/testenv';
import {
  apply,
  condition,
  connect,
  createNamespace,
  deleteNamespace,
  installCrd,
  patchInstall,
  platformInstall,
  readInstall,
  startOperator,
  type OperatorProcess,
} from '../../../operator/test/integration/support';
import { dashboardQueries, loadDashboards } from '../observability/dashboard-queries';
import { testPrometheus } from '../observability/prometheus';

const cluster = connect();
const prometheus = testPrometheus();
// The operator Service's name: the job label Prometheus Operator would give its series.
const job = `pelita-operator-${randomBytes(3).toString('hex')}`;
let namespace = '';
let operator: OperatorProcess | undefined;
let registration: { remove(): void } | undefined;

/** Reconciles Prometheus has scraped (a positive signal, not a sleep). */
async function scrapedReconciles(atLeast: number): Promise<void> {
  await waitFor(
    async () => {
      const result = await prometheus.query(
        `sum(pelita_operator_reconcile_total{namespace="${namespace}", job="${job}"})`,
      );
      const seen = result.ok ? Number(result.series[0]?.value[1] ?? 0) : 0;
      if (seen >= atLeast) return true;
      throw new Error(`${seen} reconciles scraped, waiting for ${atLeast}`);
    },
    { what: 'Prometheus to scrape the reconciles', timeoutMs: 60_000, intervalMs: 250 },
  );
}

beforeAll(async () => {
  await installCrd(cluster);
  namespace = await createNamespace(cluster, 'obs-operator');
  operator = await startOperator({ kubeconfigPath: cluster.kubeconfigPath, namespace });
  registration = await prometheus.register([
    {
      address: new URL(operator.url).host,
      labels: { namespace, job, service: job, pod: operator.identity, endpoint: 'http' },
    },
  ]);
  const name = 'acme';
  await apply(cluster, platformInstall(namespace, name));
  await waitFor(
    async () => condition(await readInstall(cluster, namespace, name), 'Ready')?.status === 'True',
    { what: 'Ready=True', timeoutMs: 90_000, intervalMs: 500 },
  );
  const done = (await operator.metric('pelita_operator_reconcile_total')) ?? 0;
  await scrapedReconciles(done);
  // A second reconcile after the first scrape: rate() then sees an increase.
  await patchInstall(cluster, namespace, name, {
    metadata: { annotations: { 'pelita.io/observability-test': 'again' } },
  });
  await scrapedReconciles(done + 1);
}, 180_000);

afterAll(async () => {
  registration?.remove();
  await operator?.stop();
  if (namespace) await deleteNamespace(cluster, namespace);
});

const dashboard = loadDashboards().find((d) => d.file === 'operator.json')!;
// Queries are made once the namespace exists; jest needs the list before, so names are fixed here
// and the namespace filled in per test.
const queries = dashboardQueries(dashboard, { namespace: '__NAMESPACE__', job });

it('has queries to run', () => {
  expect(queries.length).toBeGreaterThan(10);
});

it.each(queries)('operator.json $where', async ({ expr }) => {
  const result = await prometheus.querySeries(expr.replaceAll('__NAMESPACE__', namespace));
  expect(result).toMatchObject({ ok: true });
  if (result.ok) expect({ expr, series: result.series.length }).not.toEqual({ expr, series: 0 });
});
