// The chart's Grafana dashboards against Grafana's own published type (`@grafana/schema`'s
// `Dashboard`, and each panel type's options): a dashboard Grafana would not load fails here,
// with the line of the JSON.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { dashboardSchemaProblems, type SchemaProblem } from '../dashboard-schema';

const DASHBOARD_DIR = path.resolve(__dirname, '../../pelita-operator/dashboards');

const dashboards = Object.fromEntries(
  readdirSync(DASHBOARD_DIR)
    .filter((file) => file.endsWith('.json'))
    .map((file) => [file, readFileSync(path.join(DASHBOARD_DIR, file), 'utf8')]),
);
const platform = dashboards['platform.json']!;

/** What the changes below touch in a dashboard's parsed JSON. */
interface PanelObject {
  id: unknown;
  type: string;
  gridPos: Record<string, unknown>;
  options: Record<string, unknown>;
  fieldConfig: { defaults: Record<string, unknown> };
}
interface DashboardObject extends Record<string, unknown> {
  panels: PanelObject[];
}

/** The first panel of a type. */
const panelOf = (json: DashboardObject, type: string) =>
  json.panels.find((panel) => panel.type === type)!;

/** platform.json, each with one change that Grafana's type refuses, and what the message names. */
const BROKEN: Array<[string, (json: DashboardObject) => void, RegExp]> = [
  ['without a schemaVersion', (json) => void delete json.schemaVersion, /schemaVersion/],
  ['with a panel id that is a string', (json) => void (json.panels[0]!.id = '1'), /number/],
  [
    'with a grid position missing its width',
    (json) => void delete json.panels[1]!.gridPos.w,
    /'w'/,
  ],
  ['with a misspelt key', (json) => void (json.pannels = json.panels), /pannels/],
  [
    'with a time range that is a string',
    (json) => void (json.time = 'now-6h'),
    /from: string; to: string/,
  ],
  [
    'with a threshold mode Grafana does not have',
    (json) =>
      void (panelOf(json, 'stat').fieldConfig.defaults.thresholds = { mode: 'absolut', steps: [] }),
    /"absolut"/,
  ],
  [
    "with a stat panel's colour mode misspelt",
    (json) => void (panelOf(json, 'stat').options.colorMode = 'valu'),
    /"valu"/,
  ],
  [
    "with a time series' legend placed nowhere Grafana places it",
    (json) => void (panelOf(json, 'timeseries').options = { legend: { placement: 'left' } }),
    /"left"/,
  ],
  [
    "with a time series' line width that is a string",
    (json) => void (panelOf(json, 'timeseries').fieldConfig.defaults.custom = { lineWidth: '2' }),
    /lineWidth|number/,
  ],
  [
    'with a panel type not listed',
    (json) => void (panelOf(json, 'stat').type = 'stats'),
    /"stats"/,
  ],
];
const brokenFile = (index: number) => `broken-${index}.json`;

let problems: SchemaProblem[];
beforeAll(() => {
  // One compiler run for all: loading Grafana's types is most of its time.
  const broken = BROKEN.map(([, change], index) => {
    const json = JSON.parse(platform) as DashboardObject;
    change(json);
    return [brokenFile(index), JSON.stringify(json, null, 2)] as const;
  });
  const wrongLine = platform.replace('"schemaVersion": 39', '"schemaVersion": "39"');
  problems = dashboardSchemaProblems({
    ...dashboards,
    ...Object.fromEntries(broken),
    'wrong-line.json': wrongLine,
  });
}, 120_000);
const problemsOf = (file: string) => problems.filter((problem) => problem.file === file);

describe("the dashboards against @grafana/schema's Dashboard type", () => {
  it.each(Object.keys(dashboards))('%s fits it', (file) => {
    expect(problemsOf(file)).toEqual([]);
  });

  it.each(BROKEN.map(([what, , message], index) => [what, index, message] as const))(
    'refuses a dashboard %s',
    (_what, index, message) => {
      const found = problemsOf(brokenFile(index));
      expect(found).not.toEqual([]);
      expect(found.map((problem) => problem.message).join('\n')).toMatch(message);
    },
  );

  it('names the line of the JSON where the problem is', () => {
    const text = platform.replace('"schemaVersion": 39', '"schemaVersion": "39"');
    const line = text.split('\n').findIndex((l) => l.includes('"schemaVersion": "39"')) + 1;
    expect(problemsOf('wrong-line.json')).toEqual([
      { file: 'wrong-line.json', line, message: expect.stringContaining('number') },
    ]);
  });

  it('finds nothing outside the dashboards (the check itself compiles)', () => {
    const files = new Set([
      ...Object.keys(dashboards),
      'wrong-line.json',
      ...BROKEN.map((_, i) => brokenFile(i)),
    ]);
    expect(problems.filter((problem) => !files.has(problem.file))).toEqual([]);
  });
});
