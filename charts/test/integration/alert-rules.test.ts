// The chart's PrometheusRule, rendered by helm and run by promtool (both from `make testenv`) on
// the synthetic series of charts/test/alerts/rules.test.yaml.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { requireEnv } from '@pelita/testenv';
import { parse, stringify } from 'yaml';
import { CHART_DIR, findOne, renderChart } from '../helm';

const CASES = path.resolve(__dirname, '../alerts/rules.test.yaml');

interface RuleGroup {
  name: string;
  rules: Array<{ alert?: string; record?: string; expr: string }>;
}
interface AlertCase {
  eval_time: string;
  alertname: string;
  exp_alerts: unknown[];
}

function promtool(args: string[], cwd: string): Promise<{ code: number; output: string }> {
  const { PROMTOOL_BIN } = requireEnv('PROMTOOL_BIN');
  return new Promise((resolve) => {
    execFile(PROMTOOL_BIN, args, { cwd }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe('PrometheusRule', () => {
  let dir: string;
  let groups: RuleGroup[];
  const alerts = () => groups.flatMap((g) => g.rules.flatMap((r) => (r.alert ? [r.alert] : [])));

  beforeAll(async () => {
    const manifests = await renderChart({ set: ['prometheusRule.enabled=true'] });
    const rule = findOne(manifests, 'PrometheusRule') as unknown as {
      spec: { groups: RuleGroup[] };
    };
    groups = rule.spec.groups;
    dir = mkdtempSync(path.join(tmpdir(), 'pelita-rules-'));
    // promtool reads rule_files relative to the test file: both go into one directory.
    writeFileSync(path.join(dir, 'rules.yaml'), stringify({ groups }));
    copyFileSync(CASES, path.join(dir, 'rules.test.yaml'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is not rendered by default', async () => {
    const manifests = await renderChart();
    expect(manifests.filter((m) => m.kind === 'PrometheusRule')).toEqual([]);
  });

  it('passes `promtool check rules`', async () => {
    const result = await promtool(['check', 'rules', 'rules.yaml'], dir);
    expect(result).toEqual({ code: 0, output: expect.stringContaining('SUCCESS') });
  });

  it('passes every `promtool test rules` case', async () => {
    // On failure the output (promtool's expected and got) is in the diff.
    const result = await promtool(['test', 'rules', 'rules.test.yaml'], dir);
    expect(result).toEqual({ code: 0, output: expect.stringContaining('SUCCESS') });
  });

  it('has, for every alert, a case where it fires and one where it does not', () => {
    const cases: AlertCase[] = (
      parse(readFileSync(CASES, 'utf8')) as { tests: Array<{ alert_rule_test?: AlertCase[] }> }
    ).tests.flatMap((t) => t.alert_rule_test ?? []);
    const coverage = alerts().map((alert) => ({
      alert,
      fires: cases.some((c) => c.alertname === alert && c.exp_alerts.length > 0),
      quiet: cases.some((c) => c.alertname === alert && c.exp_alerts.length === 0),
    }));
    expect(coverage).toEqual(alerts().map((alert) => ({ alert, fires: true, quiet: true })));
    expect(cases.every((c) => alerts().includes(c.alertname))).toBe(true);
  });

  it('fails when a rule no longer does what its cases expect', async () => {
    // The cases must be able to fail: a threshold moved from 5% to 50% silences an expected alert.
    const rules = readFileSync(path.join(dir, 'rules.yaml'), 'utf8');
    const loosened = rules.replace(') > 0.05', ') > 0.5');
    expect(loosened).not.toBe(rules);
    writeFileSync(path.join(dir, 'rules.yaml'), loosened);
    try {
      const result = await promtool(['test', 'rules', 'rules.test.yaml'], dir);
      expect(result.code).not.toBe(0);
      expect(result.output).toContain('PelitaHighErrorRatio');
    } finally {
      writeFileSync(path.join(dir, 'rules.yaml'), rules);
    }
  });

  it('documents every alert in the chart README', () => {
    const readme = readFileSync(path.join(CHART_DIR, 'README.md'), 'utf8');
    expect(alerts().filter((alert) => !readme.includes(`| \`${alert}\` |`))).toEqual([]);
  });
});
