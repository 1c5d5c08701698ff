// Static checks of charts/pelita-operator that need no helm binary: the CRD copy is the generated
// one, and the Grafana dashboards are valid and query only metrics that exist.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const CHART_DIR = path.join(ROOT, 'charts/pelita-operator');
const DASHBOARD_DIR = path.join(CHART_DIR, 'dashboards');

/**
 * Every metric the dashboards may query, with its labels (Prometheus adds the target labels
 * below). The operator's names are its contract with the dashboards; when operator/src exports
 * its metric names, import them here instead of repeating them.
 */
const HISTOGRAM = ['_bucket', '_sum', '_count'];
const METRICS: Record<string, { labels: string[]; suffixes?: string[] }> = {
  // Operator (operator/src, /metrics on port 8080).
  pelita_operator_reconcile_total: { labels: ['result'] },
  pelita_operator_reconcile_duration_seconds: { labels: [], suffixes: HISTOGRAM },
  pelita_operator_queue_depth: { labels: [] },
  pelita_operator_is_leader: { labels: [] },
  pelita_operator_platforminstalls: { labels: ['ready'] },
  pelita_operator_kube_requests_total: { labels: ['verb'] },
  // Every service (services/kit/src/metrics.ts).
  http_server_request_duration_seconds: {
    labels: ['method', 'route', 'status_code'],
    suffixes: HISTOGRAM,
  },
  // Service-specific saturation (services/*/src).
  user_service_policy_sync_outbox_rows: { labels: [] },
  user_service_logins_total: { labels: ['outcome'] },
  policy_sync_syncs_total: { labels: ['kind', 'outcome'] },
  policy_sync_last_success_timestamp_seconds: { labels: ['kind'] },
  policy_sync_opa_pushes_total: { labels: ['reason', 'outcome'] },
  ocr_queue_depth: { labels: [] },
  ocr_queue_oldest_age_seconds: { labels: [] },
  ocr_engine_queue_depth: { labels: [] },
  office_converter_queue_depth: { labels: [] },
  db_proxy_pool_targets: { labels: [] },
  // Database connection pools, every service with one (services/kit/src/pool-metrics.ts).
  db_client_connection_count: { labels: ['pool', 'state'] },
  db_client_connection_max: { labels: ['pool'] },
  db_client_connection_pending_requests: { labels: ['pool'] },
  db_client_connection_wait_time_seconds: { labels: ['pool'], suffixes: HISTOGRAM },
  db_client_connection_timeouts_total: { labels: ['pool'] },
  // Decisions asked of OPA by the services' guard (services/kit/src/auth/require-auth.ts).
  authz_decision_duration_seconds: { labels: ['outcome'], suffixes: HISTOGRAM },
  // prom-client default metrics (operator and services).
  process_resident_memory_bytes: { labels: [] },
  process_cpu_seconds_total: { labels: [] },
  nodejs_heap_size_used_bytes: { labels: [] },
  nodejs_eventloop_lag_seconds: { labels: [] },
  nodejs_eventloop_lag_p99_seconds: { labels: [] },
  // Prometheus's own per-target series.
  up: { labels: [] },
};
/**
 * Labels Prometheus Operator attaches to every series scraped through a ServiceMonitor, and the
 * install's ServiceMonitor adds from the Service's labels (install, tenant, component).
 */
const TARGET_LABELS = [
  'namespace',
  'service',
  'pod',
  'job',
  'instance',
  'container',
  'endpoint',
  'install',
  'tenant',
  'component',
];

const ALLOWED = new Map<string, string[]>();
for (const [name, { labels, suffixes }] of Object.entries(METRICS)) {
  for (const suffix of suffixes ?? ['']) {
    ALLOWED.set(`${name}${suffix}`, [
      ...labels,
      ...TARGET_LABELS,
      ...(suffix === '_bucket' ? ['le'] : []),
    ]);
  }
}
const ALL_LABELS = new Set([...ALLOWED.values()].flat());
const METRIC_PREFIX =
  /^(pelita_|http_|process_|nodejs_|user_service_|policy_sync_|ocr_|office_|db_proxy_|db_client_|authz_)/;

const IDENT = '[a-zA-Z_:][a-zA-Z0-9_:]*';

/** Metric names and the label names their selectors use, from one PromQL expression. */
function parsePromql(expr: string): {
  selectors: Array<{ metric: string; labels: string[] }>;
  groupingLabels: string[];
  bareMetrics: string[];
} {
  const noStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const selectors = [...noStrings.matchAll(new RegExp(`(${IDENT})\\s*\\{([^}]*)\\}`, 'g'))].map(
    (m) => ({
      metric: m[1]!,
      labels: [...m[2]!.matchAll(new RegExp(`(${IDENT})\\s*(?:=~|!~|!=|=)`, 'g'))].map(
        (l) => l[1]!,
      ),
    }),
  );
  for (const m of noStrings.matchAll(new RegExp(`label_values\\(\\s*(${IDENT})\\s*[,)]`, 'g'))) {
    selectors.push({ metric: m[1]!, labels: [] });
  }
  const groupingLabels = [
    ...noStrings.matchAll(/\b(?:by|on|without|ignoring|group_left|group_right)\s*\(([^)]*)\)/g),
  ].flatMap((m) =>
    m[1]!
      .split(',')
      .map((l) => l.trim())
      .filter(Boolean),
  );
  const selected = new Set(selectors.map((s) => s.metric));
  const bareMetrics = [...noStrings.replace(/\{[^}]*\}/g, '{}').matchAll(new RegExp(IDENT, 'g'))]
    .map((m) => m[0])
    .filter((word) => METRIC_PREFIX.test(word) && !selected.has(word));
  return { selectors, groupingLabels, bareMetrics };
}

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type: string; uid: string };
  targets?: Array<{ refId: string; expr: string; datasource?: { uid: string } }>;
  panels?: Panel[];
}

const dashboardFiles = readdirSync(DASHBOARD_DIR).filter((f) => f.endsWith('.json'));
const dashboards: Array<{ file: string; json: any }> = dashboardFiles.map((file) => ({
  file,
  json: JSON.parse(readFileSync(path.join(DASHBOARD_DIR, file), 'utf8')),
}));

/** Every query of a dashboard: panel targets and query variables. */
function queries(json: any): Array<{ where: string; expr: string }> {
  const out: Array<{ where: string; expr: string }> = [];
  const visit = (panels: Panel[]) => {
    for (const panel of panels) {
      for (const target of panel.targets ?? []) {
        out.push({ where: `panel "${panel.title}" ${target.refId}`, expr: target.expr });
      }
      visit(panel.panels ?? []);
    }
  };
  visit(json.panels);
  for (const variable of json.templating.list) {
    if (variable.type === 'query') {
      out.push({
        where: `variable ${variable.name}`,
        expr: variable.query?.query ?? variable.query,
      });
    }
  }
  return out;
}

describe('chart CRD copy', () => {
  it('is byte-identical to the generated crds/platforminstalls.pelita.io.yaml', () => {
    const source = readFileSync(path.join(ROOT, 'crds/platforminstalls.pelita.io.yaml'), 'utf8');
    const copy = readFileSync(
      path.join(CHART_DIR, 'files/crds/platforminstalls.pelita.io.yaml'),
      'utf8',
    );
    // On failure: cp crds/platforminstalls.pelita.io.yaml charts/pelita-operator/files/crds/
    expect(copy).toBe(source);
  });
});

describe('Grafana dashboards', () => {
  it('exist: operator, platform and saturation', () => {
    expect(dashboardFiles.sort()).toEqual(['operator.json', 'platform.json', 'saturation.json']);
  });

  it('have unique uids and titles', () => {
    const uids = dashboards.map((d): unknown => d.json.uid);
    expect(new Set(uids).size).toBe(uids.length);
    const titles = dashboards.map((d): unknown => d.json.title);
    expect(new Set(titles).size).toBe(titles.length);
  });

  describe.each(dashboards)('$file', ({ json }) => {
    const allPanels: Panel[] = [];
    const collect = (panels: Panel[]) => {
      for (const p of panels) {
        allPanels.push(p);
        collect(p.panels ?? []);
      }
    };
    collect(json.panels);
    const variables: any[] = json.templating.list;

    it('is a schemaVersion 39 dashboard with uid, title and a Prometheus datasource variable', () => {
      expect(json.schemaVersion).toBe(39);
      expect(json.uid).toMatch(/^[a-z0-9-]{1,40}$/);
      expect(typeof json.title).toBe('string');
      expect(json.id).toBeUndefined(); // provisioned dashboards must not carry a database id
      expect(variables.find((v) => v.name === 'datasource')).toMatchObject({
        type: 'datasource',
        query: 'prometheus',
      });
    });

    it('places every panel on the 24-column grid, with unique ids', () => {
      expect(allPanels.length).toBeGreaterThan(3);
      for (const panel of allPanels) {
        const { h, w, x, y } = panel.gridPos;
        expect([h, w, x, y].every((n) => Number.isInteger(n) && n >= 0)).toBe(true);
        expect(x + w).toBeLessThanOrEqual(24);
      }
      const ids = allPanels.map((p) => p.id);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('queries through the ${datasource} variable everywhere', () => {
      for (const panel of allPanels.filter((p) => p.type !== 'row')) {
        expect(panel.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
        expect(panel.targets?.length).toBeGreaterThan(0);
        for (const target of panel.targets ?? []) {
          expect(target.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
        }
      }
      for (const variable of variables.filter((v) => v.type === 'query')) {
        expect(variable.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
      }
    });

    it('uses only defined variables', () => {
      const defined = new Set(variables.map((v): unknown => v.name));
      for (const { where, expr } of queries(json)) {
        for (const m of expr.matchAll(/\$\{?([a-zA-Z_]\w*)/g)) {
          const name = m[1]!;
          if (name.startsWith('__')) continue; // Grafana built-ins ($__rate_interval)
          expect({ where, variable: name, defined: defined.has(name) }).toEqual({
            where,
            variable: name,
            defined: true,
          });
        }
      }
    });

    it('queries only known metrics and their labels', () => {
      const problems: string[] = [];
      for (const { where, expr } of queries(json)) {
        const { selectors, groupingLabels, bareMetrics } = parsePromql(expr);
        if (selectors.length === 0) problems.push(`${where}: no metric in ${expr}`);
        for (const { metric, labels } of selectors) {
          const allowed = ALLOWED.get(metric);
          if (!allowed) {
            problems.push(`${where}: unknown metric ${metric}`);
            continue;
          }
          for (const label of labels) {
            if (!allowed.includes(label))
              problems.push(`${where}: ${metric} has no label ${label}`);
          }
        }
        for (const label of groupingLabels) {
          if (!ALL_LABELS.has(label)) problems.push(`${where}: unknown grouping label ${label}`);
        }
        for (const metric of bareMetrics) problems.push(`${where}: ${metric} without a selector`);
      }
      expect(problems).toEqual([]);
    });
  });

  it('are listed panel by panel in the chart README', () => {
    const readme = readFileSync(path.join(CHART_DIR, 'README.md'), 'utf8');
    const missing = dashboards.flatMap(({ file, json }) =>
      (json.panels as Panel[])
        .filter((p) => p.type !== 'row')
        .filter((p) => !readme.includes(` | ${p.title} | `))
        .map((p) => `${file}: ${p.title}`),
    );
    expect(missing).toEqual([]);
  });

  it('the metric check catches unknown metrics, labels and bare names', () => {
    expect(parsePromql('sum by (le) (rate(foo_bar_bucket{job="x"}[5m]))').selectors).toEqual([
      { metric: 'foo_bar_bucket', labels: ['job'] },
    ]);
    expect(parsePromql('rate(pelita_operator_reconcile_total[5m])').bareMetrics).toEqual([
      'pelita_operator_reconcile_total',
    ]);
    expect(parsePromql('x{a=~"b{c}", d!="e"}').selectors).toEqual([
      { metric: 'x', labels: ['a', 'd'] },
    ]);
    expect(parsePromql('label_values(pelita_operator_is_leader, job)').selectors).toEqual([
      { metric: 'pelita_operator_is_leader', labels: [] },
    ]);
  });
});
