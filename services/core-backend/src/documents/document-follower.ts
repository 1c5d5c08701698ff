/**
 * Follows documents through OCR, from PostgreSQL: every interval it leases the documents still
 * queued or processing (and finished ones whose summary may still come), asks the ocr-service for
 * each task's status, and when a task is done collects its chunks and summary into the knowledge
 * index. The lease (`lease_until`, taken with `for update skip locked`) lets several replicas share
 * the work; a replica that dies mid-way leaves a lease that expires and is taken again. Nothing
 * lives only in memory, so a restart loses no document. With no document to follow the rounds
 * space out (the kit's poll loop), until a document sent to OCR here wakes the follower.
 */
import {
  createPollLoop,
  declareSeries,
  errorMessage,
  inTraceOf,
  type Logger,
  type PollOutcome,
} from '@pelita/kit';
import type { Registry } from 'prom-client';
import type { KnowledgeIndex, Passage } from '../retrieval/knowledge-index';
import type { DocumentRecord } from './document-repository';
import type { FollowedDocumentRepository } from './followed-document-repository';
import type { OcrArtifacts } from './ocr-artifacts';
import type { OcrChunk, OcrClient } from './ocr-client';
import { replaceSummaryPassage } from './summary-passage';

export interface DocumentFollowerOptions {
  repository: FollowedDocumentRepository;
  ocr: OcrClient;
  artifacts: OcrArtifacts;
  knowledge: KnowledgeIndex;
  logger: Logger;
  registry: Registry;
  resultIndex: string;
  summaryIndexes: { summary: string; chunkSummary: string };
  /** How often documents under way are asked about. */
  intervalMs: number;
  /** With none under way, rounds space out up to this (IDLE_POLL_MAX_MS). */
  idlePollMaxMs: number;
  /** How long one replica holds a document it follows. */
  leaseMs: number;
  /** How long after `done` a summary is still waited for. */
  summaryWaitMs: number;
  /** Documents followed per round. */
  batch?: number;
}

export function createDocumentFollower(options: DocumentFollowerOptions) {
  const { ocr, logger, repository } = options;
  const { transitions, pollFailures } = declareSeries(options.registry, {
    transitions: {
      kind: 'counter',
      name: 'core_documents_finished_total',
      help: 'Documents whose processing ended, by state',
      labels: ['state'],
    },
    pollFailures: {
      kind: 'counter',
      name: 'core_document_poll_failures_total',
      help: 'Rounds in which following a document failed (retried next round)',
    },
  });
  const lease = () => repository.lease(options.leaseMs / 1000, options.batch ?? 20);
  // Progress is recorded only while the document still runs this task (a re-processing may have
  // started meanwhile). What OCR made of it is written holding its row (`whileCurrent`): a
  // deletion takes the row first, so it waits for passages being written and then removes them,
  // and none outlives its document.

  /**
   * Runs `work` — writing what the OCR made of the document — in a span of the trace of the
   * request that added it, so that trace goes on from the OCR chain into the knowledge index.
   */
  function inDocumentTrace<T>(document: DocumentRecord, name: string, work: () => Promise<T>) {
    return inTraceOf(document.traceparent ?? undefined, name, async (span) => {
      span.setAttribute('document.id', document.id);
      span.setAttribute('document.task_id', document.task_id);
      return work();
    });
  }

  /** False when the document went away (or was re-processed) meanwhile. */
  function collectChunks(document: DocumentRecord): Promise<boolean> {
    return inDocumentTrace(document, 'collect document chunks', () => storeChunks(document));
  }

  async function storeChunks(document: DocumentRecord): Promise<boolean> {
    const chunks = await ocr.chunks(document.task_id);
    const passages: Passage[] = chunks.map((chunk, position) => ({
      workspaceId: document.workspace_id,
      resourceType: 'document',
      resourceId: document.id,
      kind: 'chunk',
      position,
      title: document.name,
      text: chunkText(chunk),
      metadata: { chunk_id: chunk.id, pages: pagesOf(chunk) },
    }));
    const pages = new Set(chunks.flatMap(pagesOf)).size;
    const stillCurrent = await repository.whileCurrent(document, async (current) => {
      await options.knowledge.replace(
        { resourceType: 'document', resourceId: document.id },
        ['chunk'],
        passages.filter((p) => p.text.trim() !== ''),
      );
      await current.storeOcrResult({
        resultIndex: options.resultIndex,
        chunkIds: chunks.map((chunk) => chunk.id),
        pages,
        characters: passages.reduce((sum, p) => sum + p.text.length, 0),
        pdfUrl: chunks.find((chunk) => chunk.output_pdf_file)?.output_pdf_file ?? null,
      });
    });
    if (!stillCurrent) return false;
    transitions.inc({ state: 'done' });
    return true;
  }

  async function collectSummary(document: DocumentRecord): Promise<void> {
    const summary = await options.artifacts.summary(document.task_id);
    if (!summary) {
      const waited = Date.now() - (document.finished_at?.getTime() ?? Date.now());
      await repository.update(document.id, document.task_id, {
        ...(waited > options.summaryWaitMs ? { summary_state: 'none' } : {}),
      });
      return;
    }
    await inDocumentTrace(document, 'collect document summary', () =>
      storeSummary(document, summary),
    );
  }

  async function storeSummary(
    document: DocumentRecord,
    summary: NonNullable<Awaited<ReturnType<OcrArtifacts['summary']>>>,
  ): Promise<void> {
    await repository.whileCurrent(document, async (current) => {
      await replaceSummaryPassage(
        options.knowledge,
        {
          type: 'document',
          id: document.id,
          workspaceId: document.workspace_id,
          title: document.name,
        },
        summary.summary,
      );
      await current.storeSummary({
        ...summary,
        summaryIndex: options.summaryIndexes.summary,
        chunkSummaryIndex: options.summaryIndexes.chunkSummary,
      });
    });
  }

  /**
   * One look at the document, in a trace of its own linked to the document's: a document is
   * looked at every round while it runs (and while its summary is awaited), and those looks would
   * bury the upload's trace; what they find and write joins it (`inDocumentTrace`).
   */
  function follow(document: DocumentRecord): Promise<void> {
    return inTraceOf(undefined, 'follow document', () => followOnce(document), {
      links: [document.traceparent ?? undefined],
    });
  }

  /** Ends the document as failed: it will not be summarised. */
  async function fail(
    document: DocumentRecord,
    why: { error: string; error_code: number; stage?: string },
  ): Promise<void> {
    await repository.update(document.id, document.task_id, {
      state: 'failed',
      ...why,
      summary_state: 'none',
      finished_at: new Date(),
    });
    transitions.inc({ state: 'failed' });
  }

  async function followOnce(document: DocumentRecord): Promise<void> {
    if (document.state === 'done') return collectSummary(document);
    if (!document.submitted_at) {
      // Its replica stopped between recording the document and handing it over.
      return fail(document, {
        error: 'The document was never handed to the OCR service (interrupted); add it again',
        error_code: 500,
      });
    }
    const status = await ocr.status(document.task_id);
    if (!status) {
      return fail(document, {
        error: 'The OCR service no longer knows this task',
        error_code: 500,
      });
    }
    if (status.status === 'failed') {
      return fail(document, {
        stage: status.stage,
        error: status.error ?? 'OCR failed',
        error_code: status.error_code ?? 500,
      });
    }
    if (status.status === 'done') {
      if (!(await collectChunks(document))) return;
      return collectSummary({ ...document, state: 'done', finished_at: new Date() });
    }
    await repository.update(document.id, document.task_id, {
      state: status.status === 'pending' ? 'queued' : 'processing',
      stage: status.stage,
      progress_pct: status.progress_pct,
    });
  }

  /** `waiting` while documents are followed (asked again every interval), else `idle`. */
  async function runRound(): Promise<PollOutcome> {
    let documents: DocumentRecord[];
    try {
      documents = await lease();
    } catch (err) {
      pollFailures.inc();
      logger.warn({ err: errorMessage(err) }, 'could not lease documents to follow');
      return 'waiting';
    }
    for (const document of documents) {
      try {
        await follow(document);
      } catch (err) {
        pollFailures.inc();
        logger.warn(
          { document: document.id, err: errorMessage(err) },
          'following a document failed; retried next round',
        );
        // Let the next round (of any replica) take it again.
        await repository.release(document.id).catch(() => undefined);
      }
    }
    return documents.length > 0 ? 'waiting' : 'idle';
  }

  const loop = createPollLoop({
    round: runRound,
    intervalMs: options.intervalMs,
    idleMaxMs: options.idlePollMaxMs,
  });

  return {
    start: () => loop.start(),
    /** A document went to OCR: follow it from now rather than at the next idle round. */
    wake: () => loop.wake(),
    /** Stops after the round under way. */
    stop: () => loop.stop(),
    /** One round now (tests). */
    runRound,
  };
}

export type DocumentFollower = ReturnType<typeof createDocumentFollower>;

function chunkText(chunk: OcrChunk): string {
  const markdown = chunk.md_content_list.map((page) => page.markdown).join('\n\n');
  if (markdown.trim()) return markdown;
  return chunk.content_list.map((item) => item.content).join('\n');
}

function pagesOf(chunk: OcrChunk): number[] {
  return [...new Set(chunk.content_list.map((item) => item.page))];
}
