/**
 * Audios of a workspace. An upload is kept in object storage and recorded as `queued`; the audio
 * worker (`audio-worker.ts`) transcribes and summarises it from there. Every read goes through
 * the access lists, like documents.
 */
import { randomUUID } from 'node:crypto';
import { conflict, HttpError, inTransaction } from '@pelita/kit';
import type pg from 'pg';
import type { AccessLists } from '../access/access-lists';
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import type { Originals } from '../documents/originals';
import type { KnowledgeIndex } from '../retrieval/knowledge-index';
import type { Paging } from '../paging';
import type { Membership } from '../workspaces/workspaces';
import type { TranscribeOptions } from './speech-to-text';

export type AudioState = 'queued' | 'transcribing' | 'done' | 'failed';

export interface AudioRecord {
  id: string;
  workspace_id: string;
  name: string;
  original_key: string;
  file_name: string;
  size_bytes: string;
  stt_model: string;
  diarize: boolean;
  suppress_numerals: boolean;
  language: string | null;
  state: AudioState;
  summary_state: 'pending' | 'done' | 'failed' | 'none';
  attempts: number;
  error: string | null;
  lease_until: Date | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  transcribed_at: Date | null;
}

export interface AudioTranscript {
  text: string;
  language: string | null;
  duration_seconds: number | null;
  speakers: string[];
  segments: number;
}

export interface AudioChunkRecord {
  position: number;
  speaker: string | null;
  start_seconds: number;
  end_seconds: number;
  text: string;
}

export interface AudioSummaryRecord {
  summary: string;
  key_points: string[];
  topics: string[];
  named_entities: Record<string, unknown>;
  created_at: Date;
}

export interface AudiosDeps {
  pool: pg.Pool;
  access: AccessLists;
  /** Decides membership and permission: reading asks `knowledge.read`, changing `knowledge.write`. */
  workspaces: MemberCheck;
  knowledge: KnowledgeIndex;
  /** Unset (no S3 or no speech-to-text server): audios cannot be added (503). */
  intake: { originals: Originals; sttDefaults: () => TranscribeOptions } | undefined;
  /** Deletes an audio everywhere (`src/deletion/`). */
  deletions: { audio(id: string): Promise<void> };
}

const audioNotFound = (id: string) =>
  new HttpError(404, 'audio_not_found', `The audio ${id} does not exist`);

export function createAudios(deps: AudiosDeps) {
  const { pool, access } = deps;

  async function find(member: Membership, id: string): Promise<AudioRecord> {
    await access.requireVisible(member, 'audio', id);
    const { rows } = await pool.query<AudioRecord>('select * from audios where id = $1', [id]);
    if (!rows[0]) throw audioNotFound(id);
    return rows[0];
  }

  /** Removes what was made of the audio: transcript, chunks, summary, passages. */
  async function forgetResults(id: string): Promise<void> {
    await deps.knowledge.remove('audio', id);
    await pool.query('delete from audio_documents where audio_id = $1', [id]);
    await pool.query('delete from audio_document_chunks where audio_id = $1', [id]);
    await pool.query('delete from audio_document_summaries where audio_id = $1', [id]);
  }

  const reader = (actor: Actor) => memberOf(deps.workspaces, actor, 'knowledge.read');
  const writer = (actor: Actor) => memberOf(deps.workspaces, actor, 'knowledge.write');

  return {
    find: async (actor: Actor, id: string) => find(await reader(actor), id),

    /** Refuses (404, 403) an actor who may not add audios: asked before an upload is read. */
    mayAdd: async (actor: Actor): Promise<void> => void (await writer(actor)),

    async list(
      actor: Actor,
      filter: Paging & { state?: AudioState },
    ): Promise<{ rows: AudioRecord[]; total: number }> {
      const member = await reader(actor);
      const values: unknown[] = [member.workspaceId];
      const conditions = ['a.workspace_id = $1', access.visibleSql(member, 'audio', 'a', values)];
      if (filter.state) {
        values.push(filter.state);
        conditions.push(`a.state = $${values.length}`);
      }
      const where = conditions.join(' and ');
      const { rows: count } = await pool.query<{ n: number }>(
        `select count(*)::int as n from audios a where ${where}`,
        values,
      );
      values.push(filter.limit, (filter.page - 1) * filter.limit);
      const { rows } = await pool.query<AudioRecord>(
        `select a.* from audios a where ${where} order by a.created_at desc, a.id
         limit $${values.length - 1} offset $${values.length}`,
        values,
      );
      return { rows, total: count[0]?.n ?? 0 };
    },

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
        await inTransaction(pool, async (client) => {
          await client.query(
            `insert into audios (id, workspace_id, name, original_key, file_name, size_bytes,
               stt_model, diarize, suppress_numerals, language, created_by)
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
            [
              id,
              member.workspaceId,
              input.name,
              key,
              file.fileName,
              file.size,
              stt.model,
              stt.diarize,
              stt.suppressNumerals,
              input.language ?? stt.language,
              member.userId,
            ],
          );
          await access.grantCreator(member, 'audio', id, client);
        });
      } catch (err) {
        await deps.intake.originals.remove(key).catch(() => undefined);
        throw err;
      }
      return find(member, id);
    },

    async rename(actor: Actor, id: string, name: string): Promise<AudioRecord> {
      const member = await writer(actor);
      await find(member, id);
      await pool.query('update audios set name = $2, updated_at = now() where id = $1', [id, name]);
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
      await forgetResults(id);
      const stt = deps.intake.sttDefaults();
      await pool.query(
        `update audios set state = 'queued', summary_state = 'pending', attempts = 0, error = null,
           stt_model = $2, diarize = $3, suppress_numerals = $4, lease_until = null,
           transcribed_at = null, updated_at = now()
         where id = $1`,
        [id, stt.model, stt.diarize, stt.suppressNumerals],
      );
      return find(member, id);
    },

    async transcript(actor: Actor, id: string): Promise<AudioTranscript | undefined> {
      const member = await reader(actor);
      await find(member, id);
      const { rows } = await pool.query<AudioTranscript>(
        `select text, language, duration_seconds, speakers, segments
         from audio_documents where audio_id = $1`,
        [id],
      );
      return rows[0];
    },

    async chunks(
      actor: Actor,
      id: string,
      paging: Paging,
    ): Promise<{ rows: AudioChunkRecord[]; total: number }> {
      const member = await reader(actor);
      await find(member, id);
      const { rows: count } = await pool.query<{ n: number }>(
        'select count(*)::int as n from audio_document_chunks where audio_id = $1',
        [id],
      );
      const { rows } = await pool.query<AudioChunkRecord>(
        `select position, speaker, start_seconds, end_seconds, text from audio_document_chunks
         where audio_id = $1 order by position limit $2 offset $3`,
        [id, paging.limit, (paging.page - 1) * paging.limit],
      );
      return { rows, total: count[0]?.n ?? 0 };
    },

    async summary(actor: Actor, id: string): Promise<AudioSummaryRecord | undefined> {
      const member = await reader(actor);
      await find(member, id);
      const { rows } = await pool.query<AudioSummaryRecord>(
        `select summary, key_points, topics, named_entities, created_at
         from audio_document_summaries where audio_id = $1`,
        [id],
      );
      return rows[0];
    },

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
