/** @pelita/policy-sync as a library: the service (for tests that run it in-process) and its settings. */
export { createPolicySyncService, type PolicySyncService } from './service';
export { settingsSchema, type Settings } from './config';
