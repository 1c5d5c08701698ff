// Every query of the tenant dashboards (platform.json, saturation.json), run against the test
// environment's Prometheus after traffic through one tenant's services: none may fail, none may
// come back without a series. The operator dashboard has its own test (operator-dashboard).
import { waitFor } from '@pelita/testenv';
import { dashboardQueries, loadDashboards } from '../observability/dashboard-queries';
import { testPrometheus } from '../observability/prometheus';
import {
  ADMIN,
  newTenantIdentity,
  startTenantServices,
  type TenantServices,
} from '../observability/tenant-services';

const PROBES = ['/health', '/ready', '/metrics'];
const identity = newTenantIdentity();
// The services the dashboards' repeated row is evaluated for: every one started below.
const COMPONENTS = [
  'user-service',
  'policy-sync',
  'db-proxy',
  'http-proxy',
  'office-converter',
  'ocr-engine',
  'summarizer',
  'license-service',
  'core-backend',
  'ocr-service',
  'ocr-worker',
];
const values = {
  namespace: identity.namespace,
  tenant: identity.tenant,
  component: COMPONENTS,
};
const queries = loadDashboards()
  .filter((d) => d.file !== 'operator.json')
  .flatMap((d) => dashboardQueries(d, values));

const prometheus = testPrometheus();
let services: TenantServices | undefined;
let registration: { remove(): void } | undefined;
/** User requests (probes and scrapes left out) sent to each component so far. */
const sent = new Map<string, number>();

async function call(component: string, url: string, init?: RequestInit): Promise<void> {
  const res = await fetch(url, init);
  await res.arrayBuffer();
  if (!PROBES.includes(new URL(url).pathname)) sent.set(component, (sent.get(component) ?? 0) + 1);
}

/** One round of traffic: user requests (200, 404, 401) and the probes the dashboards leave out. */
async function traffic(running: TenantServices): Promise<void> {
  for (const { component, url } of running.components) {
    await call(component, `${url}/api-docs.json`);
    await call(component, `${url}/no-such-route`);
    for (const probe of PROBES) await call(component, `${url}${probe}`);
  }
  const user = running.components.find((c) => c.component === 'user-service')!.url;
  const login = (password: string) =>
    call('user-service', `${user}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: ADMIN.email, password }),
    });
  const res = await fetch(`${user}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: ADMIN.email, password: ADMIN.password }),
  });
  sent.set('user-service', (sent.get('user-service') ?? 0) + 1);
  const { access_token } = (await res.json()) as { access_token: string };
  await login('not-the-password');
  // A guarded route: the user service asks OPA, which the authorization panels show.
  await call('user-service', `${user}/roles`, {
    headers: { authorization: `Bearer ${access_token}` },
  });
}

/**
 * Waits until Prometheus has scraped every user request sent: a positive signal instead of a
 * sleep. After two rounds, each counter has two samples with an increase between them, which is
 * what rate() needs.
 */
async function scrapedEverything(): Promise<void> {
  const expr = `sum by (component) (http_server_request_duration_seconds_count{namespace="${identity.namespace}", route!~"${PROBES.join('|')}"})`;
  await waitFor(
    async () => {
      const result = await prometheus.query(expr);
      if (!result.ok) throw new Error(result.error);
      const seen = new Map(result.series.map((s) => [s.metric.component, Number(s.value[1])]));
      const behind = [...sent].filter(([component, n]) => (seen.get(component) ?? 0) < n);
      if (behind.length === 0) return true;
      throw new Error(`scraped fewer requests than sent: ${JSON.stringify(behind)}`);
    },
    { what: 'Prometheus to scrape the traffic', timeoutMs: 30_000, intervalMs: 250 },
  );
}

beforeAll(async () => {
  services = await startTenantServices(identity);
  expect(services.components.map((c) => c.component).sort()).toEqual([...COMPONENTS].sort());
  registration = await prometheus.register(services.targets);
  await traffic(services);
  await scrapedEverything();
  await traffic(services);
  await scrapedEverything();
}, 180_000);

afterAll(async () => {
  registration?.remove();
  await services?.stop();
});

it('has queries to run', () => {
  expect(queries.length).toBeGreaterThan(50);
});

it.each(queries)('$dashboard $where', async ({ expr }) => {
  const result = await prometheus.querySeries(expr);
  expect(result).toMatchObject({ ok: true });
  if (result.ok) expect({ expr, series: result.series.length }).not.toEqual({ expr, series: 0 });
});

it('shows the database pool of every service that has one, and the waits for its connections', async () => {
  const pools = await prometheus.querySeries(
    `count by (component, pool) (db_client_connection_count{namespace="${identity.namespace}"})`,
  );
  const reported = pools.ok
    ? pools.series.map((s) => `${s.metric.component} ${s.metric.pool}`)
    : [];
  expect(reported.sort()).toEqual([
    'core-backend main',
    'db-proxy mariadb',
    'db-proxy mysql',
    'db-proxy postgresql',
    'license-service main',
    'user-service main',
  ]);
  // Logins and the guarded route query the user service's database: those connects were timed.
  const waits = await prometheus.query(
    `sum(db_client_connection_wait_time_seconds_count{namespace="${identity.namespace}", component="user-service"})`,
  );
  expect(waits.ok && Number(waits.series[0]?.value[1])).toBeGreaterThan(0);
});

it('leaves probes and scrapes out of the request-rate panels, though they were scraped', async () => {
  const rateByRoute = queries.filter((q) => q.where.startsWith('panel "Rate by route" A'));
  expect(rateByRoute).toHaveLength(COMPONENTS.length);
  for (const { expr } of rateByRoute) {
    const result = await prometheus.query(expr);
    const routes = result.ok ? result.series.map((s) => s.metric.route) : [];
    expect(routes.length).toBeGreaterThan(0);
    expect(routes.filter((route) => PROBES.includes(route!))).toEqual([]);
  }
  const probes = await prometheus.query(
    `http_server_request_duration_seconds_count{namespace="${identity.namespace}", route=~"${PROBES.join('|')}"}`,
  );
  expect(probes.ok && probes.series.length).toBeGreaterThan(0);
});
