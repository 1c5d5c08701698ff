/** @pelita/license-service as a library: the service (for tests that run it in-process) and its settings. */
export { createLicenseService } from './service';
export { settingsSchema, type Settings } from './config';
