/** A policy-sync instance in this process, built exactly as `main.ts` builds it, with its logs captured. */
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import { settingsSchema } from '../../../src/config';
import { createPolicySyncService, type PolicySyncService } from '../../../src/service';

class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
}

export interface PolicySyncUnderTest {
  url: string;
  dataFile: string;
  service: PolicySyncService;
  logs: string[];
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** The shared file's document, undefined while there is none. */
  fileDocument(): Promise<Record<string, unknown> | undefined>;
  metrics(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * `env` holds the service's settings; `POLICY_DATA_FILE` defaults to a fresh temporary directory,
 * the timers to off (tests that need them set them), and `start` runs unless `start: false`.
 */
export async function startPolicySync(
  env: Record<string, string>,
  options: { start?: boolean } = {},
): Promise<PolicySyncUnderTest> {
  const dataFile =
    env.POLICY_DATA_FILE ?? join(mkdtempSync(join(tmpdir(), 'policy-sync-')), 'data.json');
  const settings = loadConfig(settingsSchema, {
    RESYNC_INTERVAL_MS: '0',
    OPA_PROBE_INTERVAL_MS: '0',
    USER_SERVICE_TIMEOUT_MS: '3000',
    OPA_TIMEOUT_MS: '3000',
    ...env,
    POLICY_DATA_FILE: dataFile,
  });
  const logs = new LogCapture();
  const logger = createLogger({ name: 'policy-sync', level: 'debug', destination: logs });
  const service = createPolicySyncService(settings, logger);
  const running: RunningServer = await serveInProcess(service, logger, {
    start: options.start !== false,
  });
  return {
    url: running.url,
    dataFile,
    service,
    logs: logs.lines,
    get: (path, headers = {}) => fetch(`${running.url}${path}`, { headers }),
    async fileDocument() {
      try {
        return JSON.parse(await readFile(dataFile, 'utf8')) as Record<string, unknown>;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    metrics: async () => (await fetch(`${running.url}/metrics`)).text(),
    stop: () => running.stop(),
  };
}
