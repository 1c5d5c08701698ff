/** The proxy service built as `main.ts` builds it, served on 127.0.0.1, with its log lines captured. */
import { Writable } from 'node:stream';
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import { createHttpProxyService, settingsSchema } from '../../../src';

export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void) {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  text(): string {
    return this.lines.join('\n');
  }
}

export interface ProxyUnderTest {
  url: string;
  logs: LogCapture;
  /** POSTs `{ connection }` to `/proxy`. */
  proxy(connection: unknown, headers?: Record<string, string>): Promise<Response>;
  stop(): Promise<void>;
}

/** `env` holds the proxy's settings, as the process would read them from the environment. */
export async function startProxy(env: Record<string, string> = {}): Promise<ProxyUnderTest> {
  const settings = loadConfig(settingsSchema, env);
  const logs = new LogCapture();
  const logger = createLogger({ name: 'http-proxy', level: 'debug', destination: logs });
  const service = createHttpProxyService(settings, logger);
  const running: RunningServer = await serveInProcess(service, logger, { shutdownTimeoutMs: 1000 });
  return {
    url: running.url,
    logs,
    proxy: (connection, headers = {}) =>
      fetch(`${running.url}/proxy`, {
        method: 'POST',
        // What the proxy answers, as it answers it: a passed-through 3xx must not be followed here.
        redirect: 'manual',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(connection === undefined ? {} : { connection }),
      }),
    stop: () => running.stop(),
  };
}

export interface ErrorAnswer {
  error: { code: string; message: string };
}

export async function errorOf(res: Response): Promise<ErrorAnswer['error']> {
  return ((await res.json()) as ErrorAnswer).error;
}

/** Fails with the offending secret when any captured log line contains one. */
export function expectNoSecretsIn(logs: LogCapture, secrets: string[]): void {
  const text = logs.text();
  expect(text.length).toBeGreaterThan(0);
  for (const secret of secrets) expect(text).not.toContain(secret);
}
