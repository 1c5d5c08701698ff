/**
 * Documents of a workspace. Adding one (an upload or a URL) records it, keeps an uploaded
 * original, and hands it to the ocr-service as a task whose id the record holds; the follower
 * (`document-follower.ts`) takes it from there. Every read goes through the access lists.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { conflict, currentTraceparent, HttpError, type Logger } from '@pelita/kit';
import type { AccessLists } from '../access/access-lists';
import { knowledgeRows } from '../access/knowledge-rows';
import type { Actor, MemberCheck } from '../workspaces/actor';
import type { KnowledgeIndex } from '../retrieval/knowledge-index';
import type { Paging } from '../paging';
import type { Membership } from '../workspaces/workspaces';
import type { DocumentRecord, DocumentRepository, DocumentState } from './document-repository';
import type { OcrArtifacts } from './ocr-artifacts';
import type { OcrClient, OcrOptions } from './ocr-client';
import type { Originals } from './originals';
import { createPdfLinks } from './pdf-links';

export interface NewDocument {
  name: string;
  folderId: string | null;
  options: OcrOptions;
}

export interface DocumentsDeps {
  repository: DocumentRepository;
  access: AccessLists;
  /** Decides membership and permission: reading asks `knowledge.read`, changing `knowledge.write`. */
  workspaces: MemberCheck;
  knowledge: KnowledgeIndex;
  /** Unset (no URL_OCR): documents cannot be added (503). */
  ocr: OcrClient | undefined;
  artifacts: OcrArtifacts;
  /** Unset (no S3 settings): uploads are not kept, so they cannot be re-processed. */
  originals: Originals | undefined;
  /** Deletes a document everywhere (`src/deletion/`). */
  deletions: { document(id: string): Promise<void> };
  logger: Logger;
  /** Told when a document went to OCR: the follower of this replica looks at once. */
  submitted?: () => void;
}

export function createDocuments(deps: DocumentsDeps) {
  const { repository, access } = deps;
  const ocr = () => {
    if (!deps.ocr) {
      throw new HttpError(503, 'ocr_not_configured', 'No OCR service is configured (URL_OCR)');
    }
    return deps.ocr;
  };

  const rows = knowledgeRows<DocumentRecord>({
    ...deps,
    type: 'document',
    read: (id) => repository.byId(id),
  });
  const { find, writer } = rows;
  const links = createPdfLinks({
    ocr: deps.ocr,
    store: (id, taskId, pdfUrl) => repository.renewPdfUrl(id, taskId, pdfUrl),
    logger: deps.logger,
  });

  async function checkFolder(member: Membership, folderId: string | null): Promise<void> {
    if (folderId) await access.requireVisible(member, 'folder', folderId);
  }

  /** Records the document (creator on its access list) and sends the task; nothing is left when sending fails. */
  async function add(
    member: Membership,
    input: NewDocument & { source: 'upload' | 'url'; url?: string; size?: number },
    send: (id: string) => Promise<{ originalKey?: string }>,
  ): Promise<DocumentRecord> {
    ocr();
    await checkFolder(member, input.folderId);
    const id = randomUUID();
    await access.createGranted(member, 'document', id, (client) =>
      repository.insert(client, {
        id,
        workspace_id: member.workspaceId,
        folder_id: input.folderId,
        name: input.name,
        source: input.source,
        url: input.url ?? null,
        size_bytes: input.size ?? null,
        processing: input.options.processing,
        type_ocr: input.options.typeOcr,
        created_by: member.userId,
        traceparent: currentTraceparent() ?? null,
      }),
    );
    try {
      const { originalKey } = await send(id);
      await repository.submitted(id, originalKey ?? null);
      deps.submitted?.();
    } catch (err) {
      // Through a deletion job: a kept original goes too, and a task the ocr-service took before
      // failing to answer is waited for and removed.
      await deps.deletions.document(id);
      throw err;
    }
    return find(member, id);
  }

  return {
    /** The document, its PDF link renewed when it is about to expire (`pdf-links.ts`). */
    find: async (actor: Actor, id: string) => links.live(await rows.show(actor, id)),

    /** Refuses (404, 403) an actor who may not add documents: asked before an upload is read. */
    mayAdd: async (actor: Actor): Promise<void> => void (await writer(actor)),

    list: async (actor: Actor, filter: Paging & { folderId?: string; state?: DocumentState }) =>
      links.page(await rows.page(actor, () => repository.listing(filter), filter)),

    async upload(
      actor: Actor,
      file: { path: string; name: string; size: number },
      input: NewDocument,
    ): Promise<DocumentRecord> {
      const member = await writer(actor);
      return add(member, { ...input, source: 'upload', size: file.size }, async (id) => {
        const originalKey = await deps.originals?.put(id, file.path);
        // Recorded before sending, so a failed send removes it with the record.
        if (originalKey) await repository.keptOriginal(id, originalKey);
        await ocr().submitFile(id, { path: file.path, name: input.name }, input.options);
        return originalKey ? { originalKey } : {};
      });
    },

    async fromUrl(actor: Actor, url: string, input: NewDocument): Promise<DocumentRecord> {
      const member = await writer(actor);
      return add(member, { ...input, source: 'url', url }, async (id) => {
        await ocr().submitUrl(id, url, input.options);
        return {};
      });
    },

    async update(
      actor: Actor,
      id: string,
      changes: { name?: string; folderId?: string | null },
    ): Promise<DocumentRecord> {
      const member = await writer(actor);
      await find(member, id);
      if (changes.folderId) await checkFolder(member, changes.folderId);
      await repository.update(id, changes);
      return links.live(await find(member, id));
    },

    /** Processes the document again as a new task; its old chunks and summary go first. */
    async reprocess(
      actor: Actor,
      id: string,
      options?: Partial<OcrOptions>,
    ): Promise<DocumentRecord> {
      const member = await writer(actor);
      const document = await find(member, id);
      if (document.state === 'queued' || document.state === 'processing') {
        throw conflict('The document is still being processed');
      }
      if (document.source === 'upload' && !document.original_key) {
        throw conflict('The uploaded original was not kept (no object storage): upload it again');
      }
      const attempt = document.attempt + 1;
      const taskId = `${id}-${attempt}`;
      const chosen: OcrOptions = {
        processing: options?.processing ?? document.processing,
        typeOcr: options?.typeOcr ?? document.type_ocr,
      };
      if (document.source === 'upload') {
        const dir = await mkdtemp(join(tmpdir(), 'core-reprocess-'));
        try {
          const path = join(dir, 'original');
          await deps.originals!.download(document.original_key!, path);
          await ocr().submitFile(taskId, { path, name: document.name }, chosen);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      } else {
        await ocr().submitUrl(taskId, document.url!, chosen);
      }
      await forgetResults(document);
      await repository.requeue(id, {
        taskId,
        attempt,
        options: chosen,
        traceparent: currentTraceparent() ?? null,
      });
      deps.submitted?.();
      return find(member, id);
    },

    /**
     * Deletes the document and everything made of it — passages, chunks, summaries, the stored
     * PDF and original — through a deletion job: the record is gone at once, and what a failing
     * OpenSearch or object storage keeps is removed when it is back (`src/deletion/`).
     */
    async remove(actor: Actor, id: string): Promise<void> {
      const member = await writer(actor);
      await find(member, id);
      await deps.deletions.document(id);
    },
  };

  async function forgetResults(document: DocumentRecord): Promise<void> {
    await deps.knowledge.remove('document', document.id);
    await deps.artifacts.remove(document.task_id);
    await repository.forgetResults(document.id);
  }
}

export type Documents = ReturnType<typeof createDocuments>;
