/**
 * The SQL of the audio worker: leasing the audio to work on (one at a time, `for update skip
 * locked`, so replicas share them), recording the steps' outcomes, and writing the transcript
 * and summary while the audio is still at the step (`whileAt`).
 */
import { inTransaction } from '@pelita/kit';
import type pg from 'pg';
import type { AudioRecord } from './audio-repository';

/** What is written for an audio still at its step, in one transaction holding its row. */
export interface HeldAudio {
  storeTranscript(transcript: {
    text: string;
    language: string | null;
    durationSeconds: number | null;
    speakers: string[];
    segments: number;
    /** In order; times in seconds. */
    chunks: Array<{ speaker: string | null; start: number; end: number; text: string }>;
  }): Promise<void>;
  transcribed(summaryState: 'pending' | 'none', language: string | null): Promise<void>;
  storeSummary(summary: {
    summary: string;
    keyPoints: unknown;
    topics: unknown;
    namedEntities: unknown;
  }): Promise<void>;
  summarized(): Promise<void>;
}

export function createAudioWorkRepository(pool: pg.Pool) {
  return {
    /** The next audio to transcribe or summarise, held for `leaseSeconds`. */
    async lease(leaseSeconds: number): Promise<AudioRecord | undefined> {
      const { rows } = await pool.query<AudioRecord>(
        `update audios set lease_until = now() + make_interval(secs => $1)
         where id = (
           select id from audios
           where (state in ('queued', 'transcribing') or (state = 'done' and summary_state = 'pending'))
             and (lease_until is null or lease_until < now())
           order by updated_at limit 1 for update skip locked)
         returning *`,
        [leaseSeconds],
      );
      return rows[0];
    },

    async renewLease(id: string, leaseSeconds: number): Promise<void> {
      await pool.query(
        'update audios set lease_until = now() + make_interval(secs => $2) where id = $1',
        [id, leaseSeconds],
      );
    },

    /** Lets the next round (of any replica) take the audio again. */
    async release(id: string): Promise<void> {
      await pool.query('update audios set lease_until = null where id = $1', [id]);
    },

    async startTranscribing(id: string): Promise<void> {
      await pool.query(
        `update audios set state = 'transcribing', updated_at = now()
         where id = $1 and state in ('queued', 'transcribing')`,
        [id],
      );
    },

    /** The transcript's text ('' when there is none). */
    async transcriptText(id: string): Promise<string> {
      const { rows } = await pool.query<{ text: string }>(
        'select text from audio_documents where audio_id = $1',
        [id],
      );
      return rows[0]?.text ?? '';
    },

    /** The audio gets no summary (nothing to summarise, or no summarizer). */
    async noSummary(id: string): Promise<void> {
      await pool.query(
        `update audios set summary_state = 'none', lease_until = null, updated_at = now()
         where id = $1 and summary_state = 'pending'`,
        [id],
      );
    },

    /**
     * Records a failed step: `change` is the state it leaves (given up, or back to be tried again
     * not before `pauseSeconds`, the lease doubling as "not before").
     */
    async failed(
      id: string,
      outcome: {
        step: 'transcription' | 'summary';
        giveUp: boolean;
        attempts: number;
        error: string;
        pauseSeconds: number;
      },
    ): Promise<void> {
      const stateChange =
        outcome.step === 'transcription'
          ? outcome.giveUp
            ? `state = 'failed', summary_state = 'none'`
            : `state = 'queued'`
          : outcome.giveUp
            ? `summary_state = 'failed'`
            : `summary_state = 'pending'`;
      await pool.query(
        `update audios set ${stateChange}, attempts = $2, error = $3, updated_at = now(),
           lease_until = case when $4::float8 > 0 then now() + make_interval(secs => $4) end
         where id = $1`,
        [id, outcome.attempts, outcome.error, outcome.pauseSeconds],
      );
    },

    /**
     * Runs `write` in a transaction holding the audio's row, if it is still at `at`; false (and
     * nothing written) when it is gone or moved on meanwhile.
     */
    whileAt(
      id: string,
      at: { state: string; summary_state?: string },
      write: (held: HeldAudio) => Promise<void>,
    ): Promise<boolean> {
      return inTransaction(pool, async (client) => {
        const { rows } = await client.query<AudioRecord>(
          'select * from audios where id = $1 for update',
          [id],
        );
        const audio = rows[0];
        const current =
          audio &&
          audio.state === at.state &&
          (at.summary_state === undefined || audio.summary_state === at.summary_state);
        if (!current) return false;
        await write(heldAudio(client, id));
        return true;
      });
    },
  };
}

function heldAudio(client: pg.PoolClient, id: string): HeldAudio {
  return {
    async storeTranscript(transcript) {
      await client.query(
        `insert into audio_documents (audio_id, text, language, duration_seconds, speakers, segments)
         values ($1, $2, $3, $4, $5, $6)
         on conflict (audio_id) do update set text = excluded.text, language = excluded.language,
           duration_seconds = excluded.duration_seconds, speakers = excluded.speakers,
           segments = excluded.segments, created_at = now()`,
        [
          id,
          transcript.text,
          transcript.language,
          transcript.durationSeconds,
          transcript.speakers,
          transcript.segments,
        ],
      );
      const { chunks } = transcript;
      await client.query('delete from audio_document_chunks where audio_id = $1', [id]);
      await client.query(
        `insert into audio_document_chunks (audio_id, position, speaker, start_seconds, end_seconds, text)
         select $1, p, s, b, e, t
         from unnest($2::int[], $3::text[], $4::float8[], $5::float8[], $6::text[]) as c(p, s, b, e, t)`,
        [
          id,
          chunks.map((_, i) => i),
          chunks.map((c) => c.speaker),
          chunks.map((c) => c.start),
          chunks.map((c) => c.end),
          chunks.map((c) => c.text),
        ],
      );
    },
    async transcribed(summaryState, language) {
      await client.query(
        `update audios set state = 'done', attempts = 0, error = null, lease_until = null,
           summary_state = $2, language = coalesce(language, $3), transcribed_at = now(),
           updated_at = now()
         where id = $1`,
        [id, summaryState, language],
      );
    },
    async storeSummary(summary) {
      await client.query(
        `insert into audio_document_summaries (audio_id, summary, key_points, topics, named_entities)
         values ($1, $2, $3, $4, $5)
         on conflict (audio_id) do update set summary = excluded.summary,
           key_points = excluded.key_points, topics = excluded.topics,
           named_entities = excluded.named_entities, created_at = now()`,
        [
          id,
          summary.summary,
          JSON.stringify(summary.keyPoints),
          JSON.stringify(summary.topics),
          JSON.stringify(summary.namedEntities),
        ],
      );
    },
    async summarized() {
      await client.query(
        `update audios set summary_state = 'done', attempts = 0, error = null, lease_until = null,
           updated_at = now()
         where id = $1`,
        [id],
      );
    },
  };
}

export type AudioWorkRepository = ReturnType<typeof createAudioWorkRepository>;
