/** @pelita/ocr-engine as a library: the service (for tests that run it in-process) and its settings. */
export { createOcrEngineService } from './service';
export { settingsSchema, type Settings } from './config';
