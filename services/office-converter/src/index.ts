/** @pelita/office-converter as a library: the service (for tests that run it in-process) and its settings. */
export { createOfficeConverterService } from './service';
export { settingsSchema, type Settings } from './config';
