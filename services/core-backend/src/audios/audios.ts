/**
 * Audios of a workspace. An upload is kept in object storage and recorded as `queued`; the audio
 * worker (`audio-worker.ts`) transcribes and summarises it from there. Every read goes through
 * the access lists, like documents.
 */
import { randomUUID } from 'node:crypto';
import { conflict, HttpError } from '@pelita/kit';
import type { AccessLists } from '../access/access-lists';
import { knowledgeRows } from '../access/knowledge-rows';
import type { Actor, MemberCheck } from '../workspaces/actor';
import type { Originals } from '../documents/originals';
import type { KnowledgeIndex } from '../retrieval/knowledge-index';
import type { Paging } from '../paging';
import type { AudioRecord, AudioRepository, AudioState } from './audio-repository';
import type { TranscribeOptions } from './speech-to-text';

export interface AudiosDeps {
  repository: AudioRepository;
  access: AccessLists;
  /** Decides membership and permission: reading asks `knowledge.read`, changing `knowledge.write`. */
  workspaces: MemberCheck;
  knowledge: KnowledgeIndex;
  /** Unset (no S3 or no speech-to-text server): audios cannot be added (503). */
  intake: { originals: Originals; sttDefaults: () => TranscribeOptions } | undefined;
  /** Deletes an audio everywhere (`src/deletion/`). */
  deletions: { audio(id: string): Promise<void> };
  /** Told when an audio waits for its transcript: the worker of this replica looks at once. */
  queued?: () => void;
}

export function createAudios(deps: AudiosDeps) {
  const { repository, access } = deps;
  const rows = knowledgeRows<AudioRecord>({
    ...deps,
    type: 'audio',
    read: (id) => repository.byId(id),
  });
  const { find, reader, writer } = rows;

  /** What was made of an audio the actor may read (`read` of its id). */
  const madeOf =
    <T>(read: (id: string) => Promise<T>) =>
    async (actor: Actor, id: string): Promise<T> => {
      await find(await reader(actor), id);
      return read(id);
    };

  return {
    find: rows.show,

    /** Refuses (404, 403) an actor who may not add audios: asked before an upload is read. */
    mayAdd: async (actor: Actor): Promise<void> => void (await writer(actor)),

    list: (actor: Actor, filter: Paging & { state?: AudioState }) =>
      rows.page(actor, () => repository.listing(filter), filter),

    /** Keeps the recording, then records the audio (creator on its access list) as queued. */
    async upload(
      actor: Actor,
      file: { path: string; fileName: string; size: number },
      input: { name: string; language?: string },
    ): Promise<AudioRecord> {
      const member = await writer(actor);
      if (!deps.intake) {
        throw new HttpError(
          503,
          'audio_not_configured',
          'Audios need object storage (S3_*) and a speech-to-text server (STT_BASE_URL or BASE_URL_LOCAL)',
        );
      }
      const id = randomUUID();
      const key = await deps.intake.originals.put(id, file.path);
      const stt = deps.intake.sttDefaults();
      try {
        await access.createGranted(member, 'audio', id, (client) =>
          repository.insert(client, {
            id,
            workspace_id: member.workspaceId,
            name: input.name,
            original_key: key,
            file_name: file.fileName,
            size_bytes: file.size,
            stt,
            language: input.language ?? stt.language,
            created_by: member.userId,
          }),
        );
      } catch (err) {
        await deps.intake.originals.remove(key).catch(() => undefined);
        throw err;
      }
      deps.queued?.();
      return find(member, id);
    },

    async rename(actor: Actor, id: string, name: string): Promise<AudioRecord> {
      const member = await writer(actor);
      await find(member, id);
      await repository.rename(id, name);
      return find(member, id);
    },

    /** Transcribes and summarises again (the install's current speech-to-text settings). */
    async reprocess(actor: Actor, id: string): Promise<AudioRecord> {
      const member = await writer(actor);
      const audio = await find(member, id);
      if (audio.state === 'queued' || audio.state === 'transcribing') {
        throw conflict('The audio is still being transcribed');
      }
      if (!deps.intake)
        throw new HttpError(503, 'audio_not_configured', 'Audios are not configured');
      // What was made of it goes first: passages, then transcript, chunks and summary.
      await deps.knowledge.remove('audio', id);
      await repository.forgetResults(id);
      await repository.requeue(id, deps.intake.sttDefaults());
      deps.queued?.();
      return find(member, id);
    },

    transcript: madeOf((audioId) => repository.transcript(audioId)),
    chunks: (actor: Actor, id: string, paging: Paging) =>
      madeOf((audioId) => repository.chunks(audioId, paging))(actor, id),
    summary: madeOf((audioId) => repository.summary(audioId)),

    /**
     * Deletes the audio and everything made of it, the stored recording too, through a deletion
     * job: the record is gone at once, and what a failing OpenSearch or object storage keeps is
     * removed when it is back (`src/deletion/`).
     */
    async remove(actor: Actor, id: string): Promise<void> {
      const member = await writer(actor);
      await find(member, id);
      await deps.deletions.audio(id);
    },
  };
}

export type Audios = ReturnType<typeof createAudios>;
