/**
 * Every PromQL query of the chart's Grafana dashboards, as Grafana would send it: template
 * variables replaced by values, panels of a repeated row once per value of its variable, and
 * query variables (`label_values(...)`) as the series query Grafana runs for them.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

export const DASHBOARD_DIR = path.resolve(__dirname, '../../pelita-operator/dashboards');

interface Panel {
  type: string;
  title: string;
  repeat?: string;
  targets?: Array<{ refId: string; expr: string }>;
  panels?: Panel[];
}

interface Variable {
  name: string;
  type: string;
  query?: { query: string } | string;
}

export interface Dashboard {
  file: string;
  uid: string;
  title: string;
  panels: Panel[];
  variables: Variable[];
}

export interface DashboardQuery {
  dashboard: string;
  /** `panel "<title>" <refId>` or `variable <name>`, with the repeated value when there is one. */
  where: string;
  expr: string;
}

/** Values of one dashboard's variables: one value each, or several for a repeated row. */
export type VariableValues = Record<string, string | string[]>;

/**
 * Grafana's interval variables: the test's Prometheus scrapes every second, so one minute holds
 * plenty of samples for rate().
 */
const BUILT_IN: Record<string, string> = {
  __rate_interval: '1m',
  __interval: '1m',
  __range: '5m',
};

export function loadDashboards(dir = DASHBOARD_DIR): Dashboard[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const json = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as {
        uid: string;
        title: string;
        panels: Panel[];
        templating: { list: Variable[] };
      };
      return {
        file,
        uid: json.uid,
        title: json.title,
        panels: json.panels,
        variables: json.templating.list,
      };
    });
}

/** `$name` and `${name}` replaced; a multi-value variable becomes a regex alternation. */
export function substitute(expr: string, values: Record<string, string | string[]>): string {
  return expr.replace(/\$\{(\w+)\}|\$(\w+)/g, (_match, braced?: string, bare?: string) => {
    const name = (braced ?? bare)!;
    const value = BUILT_IN[name] ?? values[name];
    if (value === undefined) throw new Error(`no value for variable ${name} in ${expr}`);
    return Array.isArray(value) ? `(${value.join('|')})` : value;
  });
}

/** `label_values(selector, label)` as the query Grafana runs: the series of that selector. */
function variableQuery(query: string): string {
  const m = /^label_values\((.*),\s*(\w+)\)$/.exec(query.trim());
  if (!m) throw new Error(`unsupported variable query: ${query}`);
  return `count by (${m[2]}) (${m[1]})`;
}

/**
 * The panels in display order with the row each belongs to: an uncollapsed row owns the panels
 * after it up to the next row; a collapsed one carries its own in `panels`.
 */
function panelsWithRows(panels: Panel[]): Array<{ panel: Panel; row?: Panel }> {
  const out: Array<{ panel: Panel; row?: Panel }> = [];
  let row: Panel | undefined;
  for (const panel of panels) {
    if (panel.type === 'row') {
      row = panel;
      for (const inner of panel.panels ?? []) out.push({ panel: inner, row });
      continue;
    }
    out.push({ panel, row });
  }
  return out;
}

export function dashboardQueries(dashboard: Dashboard, values: VariableValues): DashboardQuery[] {
  const queries: DashboardQuery[] = [];
  for (const { panel, row } of panelsWithRows(dashboard.panels)) {
    const repeat = row?.repeat;
    const repeated = repeat ? [values[repeat]].flat() : [undefined];
    for (const value of repeated) {
      const scope = value === undefined ? values : { ...values, [repeat!]: value };
      for (const target of panel.targets ?? []) {
        const where = `panel "${panel.title}" ${target.refId}${value ? ` (${repeat}=${value})` : ''}`;
        queries.push({ dashboard: dashboard.file, where, expr: substitute(target.expr, scope) });
      }
    }
  }
  for (const variable of dashboard.variables.filter((v) => v.type === 'query')) {
    const query = typeof variable.query === 'string' ? variable.query : variable.query?.query;
    if (!query) throw new Error(`${dashboard.file}: variable ${variable.name} has no query`);
    queries.push({
      dashboard: dashboard.file,
      where: `variable ${variable.name}`,
      expr: substitute(variableQuery(query), values),
    });
  }
  return queries;
}
