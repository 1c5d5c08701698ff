/** The SQL of audios and of what was made of them: transcript, chunks, summary. */
import type pg from 'pg';
import type { Listing } from '../access/access-lists';
import type { Paging } from '../paging';

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

/** The speech-to-text settings a transcription runs with. */
export interface SttChoice {
  model: string;
  diarize: boolean;
  suppressNumerals: boolean;
}

export type NewAudioRow = Pick<
  AudioRecord,
  'id' | 'workspace_id' | 'name' | 'original_key' | 'file_name' | 'language' | 'created_by'
> & { size_bytes: number; stt: SttChoice };

export function createAudioRepository(pool: pg.Pool) {
  return {
    /** How `access.page` lists audios: newest first, in a state when asked. */
    listing: (filter: { state?: AudioState }): Listing => ({
      alias: 'a',
      orderBy: 'a.created_at desc, a.id',
      filters: [[(ref) => `a.state = ${ref}`, filter.state]],
    }),

    async byId(id: string): Promise<AudioRecord | undefined> {
      const { rows } = await pool.query<AudioRecord>('select * from audios where id = $1', [id]);
      return rows[0];
    },

    async insert(client: pg.PoolClient, row: NewAudioRow): Promise<void> {
      await client.query(
        `insert into audios (id, workspace_id, name, original_key, file_name, size_bytes,
           stt_model, diarize, suppress_numerals, language, created_by)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          row.id,
          row.workspace_id,
          row.name,
          row.original_key,
          row.file_name,
          row.size_bytes,
          row.stt.model,
          row.stt.diarize,
          row.stt.suppressNumerals,
          row.language,
          row.created_by,
        ],
      );
    },

    async rename(id: string, name: string): Promise<void> {
      await pool.query('update audios set name = $2, updated_at = now() where id = $1', [id, name]);
    },

    /** Drops the transcript, its chunks and the summary (their passages are the index's). */
    async forgetResults(id: string): Promise<void> {
      await pool.query('delete from audio_documents where audio_id = $1', [id]);
      await pool.query('delete from audio_document_chunks where audio_id = $1', [id]);
      await pool.query('delete from audio_document_summaries where audio_id = $1', [id]);
    },

    /** Queues the audio again, to be transcribed with `stt`. */
    async requeue(id: string, stt: SttChoice): Promise<void> {
      await pool.query(
        `update audios set state = 'queued', summary_state = 'pending', attempts = 0, error = null,
           stt_model = $2, diarize = $3, suppress_numerals = $4, lease_until = null,
           transcribed_at = null, updated_at = now()
         where id = $1`,
        [id, stt.model, stt.diarize, stt.suppressNumerals],
      );
    },

    async transcript(id: string): Promise<AudioTranscript | undefined> {
      const { rows } = await pool.query<AudioTranscript>(
        `select text, language, duration_seconds, speakers, segments
         from audio_documents where audio_id = $1`,
        [id],
      );
      return rows[0];
    },

    async chunks(id: string, paging: Paging): Promise<{ rows: AudioChunkRecord[]; total: number }> {
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

    async summary(id: string): Promise<AudioSummaryRecord | undefined> {
      const { rows } = await pool.query<AudioSummaryRecord>(
        `select summary, key_points, topics, named_entities, created_at
         from audio_document_summaries where audio_id = $1`,
        [id],
      );
      return rows[0];
    },
  };
}

export type AudioRepository = ReturnType<typeof createAudioRepository>;
