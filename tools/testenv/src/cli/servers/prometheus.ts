// Prometheus and promtool, built from source with `go install` (Prometheus 3.x: module v0.3xx).
// Tests and `make dev` register what to scrape by writing file_sd target files into
// PROMETHEUS_TARGETS_DIR, so one long-running Prometheus serves every test without restarts.
// PROMTOOL_BIN runs `promtool test rules` on the chart's alerting rules.
import path from 'node:path';
import { type Settings } from '../../lib/settings';
import { type GoProgram, goBinaryPath, goInstall, isGoBinaryCurrent } from '../go-binary';
import { httpOk } from '../probes';
import { spawnDaemon, stopDaemon } from '../proc';
import { type Server, makeOwnedDir, serverHome, serverPaths, writeOwnedFile } from '../server';

const NAME = 'prometheus';
const PORT = 59090;
const VERSION = 'v0.316.0';

/**
 * Without the service-discovery plugins (cloud SDKs, Kubernetes client...) that tests never use:
 * file_sd and static targets stay. It more than halves the cold build, the longest after
 * Kubernetes'. The stamp records the tag: a change rebuilds.
 */
const TAGS = 'remove_all_sd';

const PROMETHEUS: GoProgram = {
  binary: 'prometheus',
  module: 'github.com/prometheus/prometheus/cmd/prometheus',
  version: VERSION,
  tags: TAGS,
};
const PROMTOOL: GoProgram = {
  ...PROMETHEUS,
  binary: 'promtool',
  module: 'github.com/prometheus/prometheus/cmd/promtool',
};
/** One `go install` of both: promtool shares nearly every package with prometheus. */
const PROGRAMS = [PROMETHEUS, PROMTOOL];

function targetsDir(settings: Settings): string {
  return path.join(serverPaths(settings, NAME).dir, 'targets');
}

/**
 * Scrapes every 1 s so a test sees a counter's second sample (what rate() needs) within seconds;
 * file_sd picks new target files up through inotify, without waiting for its refresh interval.
 */
function config(settings: Settings): string {
  return [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    '  evaluation_interval: 1s',
    'scrape_configs:',
    '  - job_name: testenv',
    '    honor_labels: true',
    '    file_sd_configs:',
    `      - files: ['${targetsDir(settings)}/*.json']`,
    '        refresh_interval: 5s',
    '',
  ].join('\n');
}

export const prometheus: Server = {
  name: NAME,
  startTimeoutMs: 30_000,

  isInstalled: (settings) => PROGRAMS.every((program) => isGoBinaryCurrent(settings, program)),

  install: (ctx) => goInstall(ctx, PROGRAMS),

  start(ctx) {
    const { dir, pidFile, logFile } = serverPaths(ctx, NAME);
    makeOwnedDir(ctx, path.join(dir, 'data'));
    makeOwnedDir(ctx, targetsDir(ctx));
    const configFile = path.join(dir, 'prometheus.yml');
    writeOwnedFile(ctx, configFile, config(ctx));
    spawnDaemon({
      command: goBinaryPath(ctx, PROMETHEUS),
      args: [
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        // Tests only look at the last minutes; keep the data directory small.
        '--storage.tsdb.retention.time=6h',
        `--web.listen-address=127.0.0.1:${PORT}`,
        '--log.level=warn',
      ],
      cwd: dir,
      env: serverHome(ctx, dir),
      account: ctx.account,
      pidFile,
      logFile,
    });
    return Promise.resolve();
  },

  isReady: () => httpOk(`http://127.0.0.1:${PORT}/-/ready`),

  env: (settings) => ({
    PROMETHEUS_URL: `http://127.0.0.1:${PORT}`,
    PROMETHEUS_TARGETS_DIR: targetsDir(settings),
    PROMETHEUS_BIN: goBinaryPath(settings, PROMETHEUS),
    PROMTOOL_BIN: goBinaryPath(settings, PROMTOOL),
  }),

  stop: async (settings: Settings) => {
    await stopDaemon(serverPaths(settings, NAME).pidFile, 'SIGTERM');
  },
};
