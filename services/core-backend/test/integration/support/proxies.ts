/** db-proxy and http-proxy in this process, as the core backend reaches them (service tokens set). */
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import { createDbProxyService, settingsSchema as dbProxySettings } from '@pelita/db-proxy';
import { createHttpProxyService, settingsSchema as httpProxySettings } from '@pelita/http-proxy';

const quiet = createLogger({ name: 'proxies', level: 'silent' });

export const DB_PROXY_TOKEN = 'db-token';
export const HTTP_PROXY_TOKEN = 'proxy-token';

export function startDbProxy(): Promise<RunningServer> {
  return serveInProcess(
    createDbProxyService(
      loadConfig(dbProxySettings, {
        PROXY_SERVICE_TOKEN: DB_PROXY_TOKEN,
        // The test servers (and the tests' fake servers) listen on loopback.
        ALLOWED_DB_HOSTS: '127.0.0.1,localhost',
      }),
      quiet,
    ),
    quiet,
  );
}

/** Targets on loopback allowed: the tests' upstreams listen there. */
export function startHttpProxy(): Promise<RunningServer> {
  return serveInProcess(
    createHttpProxyService(
      loadConfig(httpProxySettings, {
        ALLOWED_TARGETS: '127.0.0.1',
        PROXY_SERVICE_TOKEN: HTTP_PROXY_TOKEN,
      }),
      quiet,
    ),
    quiet,
  );
}
