// Prometheus and promtool from Debian's package (2.42): an official, checksummed build, where the
// 3.x source build was one of the longest Go builds of a fresh machine's `make test`. What tests
// use works the same on 2.x: file_sd targets, PromQL over the HTTP API, `promtool check rules` and
// `promtool test rules`. Tests and `make dev` register what to scrape by writing file_sd target
// files into PROMETHEUS_TARGETS_DIR, so one long-running Prometheus serves every test without
// restarts. PROMTOOL_BIN runs `promtool test rules` on the chart's alerting rules.
import fs from 'node:fs';
import path from 'node:path';
import { type Settings } from '../../lib/settings';
import { httpOk } from '../probes';
import { spawnDaemon, stopDaemon } from '../proc';
import { type Server, makeOwnedDir, serverHome, serverPaths, writeOwnedFile } from '../server';

const NAME = 'prometheus';
const PORT = 59090;
/** Debian's paths: the package's binaries, whatever the PATH. */
const PROMETHEUS_BIN = '/usr/bin/prometheus';
const PROMTOOL_BIN = '/usr/bin/promtool';

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

  isInstalled: () => [PROMETHEUS_BIN, PROMTOOL_BIN].every((file) => fs.existsSync(file)),

  // Its maintainer scripts do not start Debian's own instance: ctx.apt blocks them (policy-rc.d).
  install: (ctx) => ctx.apt(['prometheus']),

  start(ctx) {
    const { dir, pidFile, logFile } = serverPaths(ctx, NAME);
    makeOwnedDir(ctx, path.join(dir, 'data'));
    makeOwnedDir(ctx, targetsDir(ctx));
    const configFile = path.join(dir, 'prometheus.yml');
    writeOwnedFile(ctx, configFile, config(ctx));
    spawnDaemon({
      command: PROMETHEUS_BIN,
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
    PROMETHEUS_BIN,
    PROMTOOL_BIN,
  }),

  stop: async (settings: Settings) => {
    await stopDaemon(serverPaths(settings, NAME).pidFile, 'SIGTERM');
  },
};
