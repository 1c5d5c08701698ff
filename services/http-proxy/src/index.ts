/** @pelita/http-proxy as a library: the service (for tests that run it in-process) and its settings. */
export { createHttpProxyService, type HttpProxyOptions } from './service';
export { settingsSchema, type Settings } from './config';
export type { UpstreamClient } from './forward/upstream-client';
