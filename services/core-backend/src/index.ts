/** The core backend as a library: what tests and tools build it from. */
export { createCoreBackend } from './service';
export { settingsSchema, type Settings } from './config';
