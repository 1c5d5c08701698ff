/** What the route modules share: settings, fault script, registry, processor, signer, origin. */
import type { FaultScript } from './faults';
import type { TaskProcessor } from './task-processor';
import type { TaskRegistry } from './task-registry';
import type { UploadSigner } from './upload-signer';
import type { ZipMethod } from './zip-writer';

/** The settings `configure` and `PUT /_stub/options` may change while running. */
export interface RuntimeSettings {
  queueMs: number;
  pageMs: number;
  convertingMs: number;
  maxFilesPerBatch: number;
  maxPages: number;
  maxFileBytes: number;
  zipMethod: ZipMethod;
}

export interface StubContext {
  runtime: RuntimeSettings;
  /** Unset: any non-empty bearer token. */
  token: string | undefined;
  script: FaultScript;
  registry: TaskRegistry;
  processor: TaskProcessor;
  signer: UploadSigner;
  /** The origin written into the URLs handed out; known once the server listens. */
  origin: string;
}
