/** @pelita/ocr-service as a library: its settings (the API and the worker read the same). */
export { settingsSchema, type Settings } from './config';
export { createOcrApiService } from './api/service';
export { createWorkerService } from './worker/service';
