/** @pelita/db-proxy as a library: the service (for tests that run it in-process) and its settings. */
export { createDbProxyService } from './service';
export { settingsSchema, type Settings } from './config';
