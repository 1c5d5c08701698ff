/** @pelita/ocr-service (in progress): the durable task queue and the shared status records. */
export {
  createTaskQueue,
  type TaskQueue,
  type QueuedTask,
  type QueueOptions,
} from './queue/task-queue';
export { createStatusStore, type StatusStore } from './status/status-store';
export { STAGES, timestampWithoutZone, type TaskRecord, type Stage } from './status/task-record';
export { createLocalEngine, type LocalEngineOptions } from './engines/local-engine';
export type { OcrEngine, OcrOutput, ContentItem, PageMarkdown } from './engines/engine';
export { chunkDocuments, type ChunkDocument } from './results/chunks';
export { createChunkIndex, type ChunkIndex } from './results/chunk-index';
export { createSummarizerClient } from './summaries/summarizer-client';
export { createSummaryIndex } from './summaries/summary-index';
export { summarizeDocument } from './summaries/summarize-hand-off';
export { createCloudEngine, type CloudEngineOptions } from './engines/cloud-engine';
