/**
 * @pelita/ocr-engine as a library: the service (for tests that run it in-process), its settings,
 * and the MinerU content list it speaks (the OCR worker and the cloud double use the same types).
 */
export { createOcrEngineService } from './service';
export { settingsSchema, type Settings } from './config';
export type {
  Box,
  ContentItem,
  ContentListEntry,
  ImageItem,
  TextItem,
} from './mineru/content-list';
