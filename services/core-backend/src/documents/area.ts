/**
 * The documents area: documents and their folders (routes, services, repositories) and the
 * follower that takes documents through OCR in the background. The OCR client, the OCR artifacts
 * and the kept originals come from outside: deletions remove them too.
 */
import type { Logger } from '@pelita/kit';
import type pg from 'pg';
import type { Registry } from 'prom-client';
import type { AccessLists } from '../access/access-lists';
import type { Area } from '../area';
import type { Settings } from '../config';
import type { KnowledgeIndex } from '../retrieval/knowledge-index';
import type { MemberCheck } from '../workspaces/actor';
import type { CallerOf } from '../workspaces/caller';
import { createDocumentFollower, type DocumentFollower } from './document-follower';
import { createDocumentRepository } from './document-repository';
import { createDocumentResults } from './document-results';
import { createFollowedDocumentRepository } from './followed-document-repository';
import { createDocuments, type DocumentsDeps } from './documents';
import { folderRoutes } from './folder-routes';
import { createFolderRepository } from './folder-repository';
import { createFolders } from './folders';
import { documentRoutes } from './routes';

export interface DocumentsAreaDeps extends Pick<
  DocumentsDeps,
  'ocr' | 'artifacts' | 'originals' | 'deletions'
> {
  pool: pg.Pool;
  access: AccessLists;
  workspaces: MemberCheck;
  knowledge: KnowledgeIndex;
  callerOf: CallerOf;
  logger: Logger;
  registry: Registry;
  settings: Pick<
    Settings,
    | 'TEMP_DIR'
    | 'MAX_UPLOAD_BYTES'
    | 'DEFAULT_OCR_PROCESSING'
    | 'INDEX_PDF_PARSING_RESULTS'
    | 'INDEX_DOCUMENT_SUMMARIZE'
    | 'INDEX_DOCUMENT_SUMMARIZE_CHUNK'
    | 'OCR_POLL_INTERVAL_MS'
    | 'IDLE_POLL_MAX_MS'
    | 'OCR_REQUEST_TIMEOUT_MS'
    | 'SUMMARY_WAIT_MS'
  >;
}

export function documentsArea(deps: DocumentsAreaDeps): {
  area: Area;
  /** Unset without URL_OCR (integration tests reach in). */
  follower: DocumentFollower | undefined;
} {
  const { pool, access, workspaces, knowledge, settings } = deps;
  const repository = createDocumentRepository(pool);
  const documents = createDocuments({
    repository,
    access,
    workspaces,
    knowledge,
    ocr: deps.ocr,
    artifacts: deps.artifacts,
    originals: deps.originals,
    deletions: deps.deletions,
    logger: deps.logger,
    submitted: () => follower?.wake(),
  });
  const follower =
    deps.ocr &&
    createDocumentFollower({
      repository: createFollowedDocumentRepository(pool),
      ocr: deps.ocr,
      artifacts: deps.artifacts,
      knowledge,
      logger: deps.logger,
      registry: deps.registry,
      resultIndex: settings.INDEX_PDF_PARSING_RESULTS,
      summaryIndexes: {
        summary: settings.INDEX_DOCUMENT_SUMMARIZE,
        chunkSummary: settings.INDEX_DOCUMENT_SUMMARIZE_CHUNK,
      },
      intervalMs: settings.OCR_POLL_INTERVAL_MS,
      idlePollMaxMs: settings.IDLE_POLL_MAX_MS,
      leaseMs: Math.max(30_000, settings.OCR_REQUEST_TIMEOUT_MS * 2),
      summaryWaitMs: settings.SUMMARY_WAIT_MS,
    });
  const routes = [
    ...documentRoutes({
      documents,
      results: createDocumentResults({ repository, documents, knowledge }),
      callerOf: deps.callerOf,
      logger: deps.logger,
      tempDir: settings.TEMP_DIR,
      maxUploadBytes: settings.MAX_UPLOAD_BYTES,
      defaultProcessing: settings.DEFAULT_OCR_PROCESSING,
    }),
    ...folderRoutes({
      folders: createFolders(createFolderRepository(pool), access, workspaces),
      callerOf: deps.callerOf,
    }),
  ];
  return {
    area: {
      routes,
      start: () => follower?.start(),
      stop: async () => follower?.stop(),
    },
    follower,
  };
}
