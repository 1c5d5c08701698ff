/** @pelita/summarizer as a library: the service (for tests that run it in-process) and its settings. */
export { createSummarizerService, type SummarizerService } from './service';
export { settingsSchema, type Settings } from './config';
