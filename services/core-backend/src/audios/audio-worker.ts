/**
 * Works audios through speech-to-text and the summarizer, from PostgreSQL: every interval it
 * leases one audio waiting for a transcript (or a transcribed one waiting for its summary), takes
 * the recording from object storage, and stores what comes back — transcript, speaker chunks,
 * passages in the knowledge index, then the summary. Like the document follower, the lease
 * (`lease_until`, taken with `for update skip locked`) lets replicas share the work and a dead
 * replica's audio be taken again; a heartbeat keeps it while a long recording is transcribed.
 * A failure that may pass (5xx, time-out, connection) is tried again later, with a growing
 * pause, up to AUDIO_MAX_ATTEMPTS; one that cannot (the server refused the file) fails at once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  errorMessage,
  inTransaction,
  type Logger,
  type SummarizerClient,
  SummarizerError,
} from '@pelita/kit';
import { Counter, type Registry } from 'prom-client';
import type pg from 'pg';
import type { Originals } from '../documents/originals';
import { replaceSummaryPassage } from '../documents/summary-passage';
import type { KnowledgeIndex } from '../retrieval/knowledge-index';
import type { AudioRecord } from './audio-repository';
import { RefusedAudioError, type SpeechToText } from './speech-to-text';
import { chunkTranscript, transcriptText, type TranscriptChunk } from './transcript-chunks';

export interface AudioWorkerOptions {
  pool: pg.Pool;
  originals: Originals;
  speechToText: SpeechToText;
  /** Unset: transcripts get no summary (`summary_state` none). */
  summarizer: SummarizerClient | undefined;
  knowledge: KnowledgeIndex;
  logger: Logger;
  registry: Registry;
  tempDir: string;
  chunkWords: number;
  intervalMs: number;
  maxAttempts: number;
  /** How long a lease lasts without a heartbeat (renewed every third of it). */
  leaseMs?: number;
}

/** The audio is gone or was handed to another step meanwhile: drop the result. */
class Superseded extends Error {}

export function createAudioWorker(options: AudioWorkerOptions) {
  const { pool, logger } = options;
  const leaseMs = options.leaseMs ?? 60_000;
  const finished = new Counter({
    name: 'core_audio_steps_total',
    help: 'Transcriptions and summaries of audios that ended, by step and outcome',
    labelNames: ['step', 'outcome'] as const,
    registers: [options.registry],
  });
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();
  // Aborts the call under way on stop: a recording may take an hour, a shutdown may not.
  let stopping = new AbortController();

  async function lease(): Promise<AudioRecord | undefined> {
    const { rows } = await pool.query<AudioRecord>(
      `update audios set lease_until = now() + make_interval(secs => $1)
       where id = (
         select id from audios
         where (state in ('queued', 'transcribing') or (state = 'done' and summary_state = 'pending'))
           and (lease_until is null or lease_until < now())
         order by updated_at limit 1 for update skip locked)
       returning *`,
      [leaseMs / 1000],
    );
    return rows[0];
  }

  /** Keeps the lease while `work` runs. */
  async function holding<T>(id: string, work: () => Promise<T>): Promise<T> {
    const heartbeat = setInterval(() => {
      pool
        .query('update audios set lease_until = now() + make_interval(secs => $2) where id = $1', [
          id,
          leaseMs / 1000,
        ])
        .catch((err: unknown) => logger.warn({ audio: id, err: errorMessage(err) }, 'heartbeat'));
    }, leaseMs / 3);
    try {
      return await work();
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Runs `write` in a transaction holding the audio's row, if it is still at `state`. */
  async function whileCurrent(
    id: string,
    state: { state: string; summary_state?: string },
    write: (client: pg.PoolClient, audio: AudioRecord) => Promise<void>,
  ): Promise<void> {
    await inTransaction(pool, async (client) => {
      const { rows } = await client.query<AudioRecord>(
        'select * from audios where id = $1 for update',
        [id],
      );
      const audio = rows[0];
      const current =
        audio &&
        audio.state === state.state &&
        (state.summary_state === undefined || audio.summary_state === state.summary_state);
      if (!current) throw new Superseded();
      await write(client, audio);
    });
  }

  async function transcribe(audio: AudioRecord): Promise<void> {
    await pool.query(
      `update audios set state = 'transcribing', updated_at = now()
       where id = $1 and state in ('queued', 'transcribing')`,
      [audio.id],
    );
    const dir = await mkdtemp(join(options.tempDir, 'audio-'));
    try {
      const path = join(dir, 'recording');
      await options.originals.download(audio.original_key, path);
      const result = await options.speechToText.transcribe(
        { path, name: audio.file_name },
        {
          model: audio.stt_model,
          diarize: audio.diarize,
          suppressNumerals: audio.suppress_numerals,
          language: audio.language,
        },
        stopping.signal,
      );
      const chunks = chunkTranscript(result.segments, options.chunkWords);
      const text = transcriptText(chunks);
      await whileCurrent(audio.id, { state: 'transcribing' }, async (client) => {
        await storeTranscript(client, audio, result, chunks, text);
        await client.query(
          `update audios set state = 'done', attempts = 0, error = null, lease_until = null,
             summary_state = $2, language = coalesce(language, $3), transcribed_at = now(),
             updated_at = now()
           where id = $1`,
          [audio.id, options.summarizer && text !== '' ? 'pending' : 'none', result.language],
        );
      });
      finished.inc({ step: 'transcription', outcome: 'done' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async function storeTranscript(
    client: pg.PoolClient,
    audio: AudioRecord,
    result: { language: string | null; duration: number | null; segments: unknown[] },
    chunks: TranscriptChunk[],
    text: string,
  ): Promise<void> {
    const speakers = [...new Set(chunks.map((c) => c.speaker).filter((s) => s !== null))];
    await client.query(
      `insert into audio_documents (audio_id, text, language, duration_seconds, speakers, segments)
       values ($1, $2, $3, $4, $5, $6)
       on conflict (audio_id) do update set text = excluded.text, language = excluded.language,
         duration_seconds = excluded.duration_seconds, speakers = excluded.speakers,
         segments = excluded.segments, created_at = now()`,
      [audio.id, text, result.language, result.duration, speakers, result.segments.length],
    );
    await client.query('delete from audio_document_chunks where audio_id = $1', [audio.id]);
    await client.query(
      `insert into audio_document_chunks (audio_id, position, speaker, start_seconds, end_seconds, text)
       select $1, p, s, b, e, t
       from unnest($2::int[], $3::text[], $4::float8[], $5::float8[], $6::text[]) as c(p, s, b, e, t)`,
      [
        audio.id,
        chunks.map((_, i) => i),
        chunks.map((c) => c.speaker),
        chunks.map((c) => c.start),
        chunks.map((c) => c.end),
        chunks.map((c) => c.text),
      ],
    );
    // Indexed while the row is held: a deletion waits for this and then removes the passages.
    await options.knowledge.replace(
      { resourceType: 'audio', resourceId: audio.id },
      ['transcript'],
      chunks.map((chunk, position) => ({
        workspaceId: audio.workspace_id,
        resourceType: 'audio',
        resourceId: audio.id,
        kind: 'transcript',
        position,
        title: audio.name,
        text: chunk.speaker ? `${chunk.speaker}: ${chunk.text}` : chunk.text,
        metadata: { speaker: chunk.speaker, start: chunk.start, end: chunk.end },
      })),
    );
  }

  async function summarize(audio: AudioRecord): Promise<void> {
    const summarizer = options.summarizer;
    const { rows } = await pool.query<{ text: string }>(
      'select text from audio_documents where audio_id = $1',
      [audio.id],
    );
    const text = rows[0]?.text ?? '';
    if (!summarizer || text === '') {
      await pool.query(
        `update audios set summary_state = 'none', lease_until = null, updated_at = now()
         where id = $1 and summary_state = 'pending'`,
        [audio.id],
      );
      return;
    }
    const result = await summarizer.summarize({ name: `${audio.id}.txt`, text }, stopping.signal);
    const final = result.final_summary;
    await whileCurrent(audio.id, { state: 'done', summary_state: 'pending' }, async (client) => {
      await client.query(
        `insert into audio_document_summaries (audio_id, summary, key_points, topics, named_entities)
         values ($1, $2, $3, $4, $5)
         on conflict (audio_id) do update set summary = excluded.summary,
           key_points = excluded.key_points, topics = excluded.topics,
           named_entities = excluded.named_entities, created_at = now()`,
        [
          audio.id,
          final.summary,
          JSON.stringify(final.key_points_model),
          JSON.stringify(final.topics_aggregated),
          JSON.stringify(final.named_entities),
        ],
      );
      await replaceSummaryPassage(
        options.knowledge,
        { type: 'audio', id: audio.id, workspaceId: audio.workspace_id, title: audio.name },
        final.summary,
      );
      await client.query(
        `update audios set summary_state = 'done', attempts = 0, error = null, lease_until = null,
           updated_at = now()
         where id = $1`,
        [audio.id],
      );
    });
    finished.inc({ step: 'summary', outcome: 'done' });
  }

  /** Records a failed step: given up (refused, or out of attempts) or tried again later. */
  async function failed(audio: AudioRecord, step: 'transcription' | 'summary', err: unknown) {
    const permanent =
      err instanceof RefusedAudioError ||
      (err instanceof SummarizerError &&
        err.status !== undefined &&
        err.status >= 400 &&
        err.status < 500) ||
      (err instanceof Error && err.name === 'NoSuchKey');
    const attempts = audio.attempts + 1;
    const giveUp = permanent || attempts >= options.maxAttempts;
    const message = `${step}: ${errorMessage(err)}`.slice(0, 1000);
    logger.warn({ audio: audio.id, attempts, giveUp, err: message }, 'an audio step failed');
    const stateChange =
      step === 'transcription'
        ? giveUp
          ? `state = 'failed', summary_state = 'none'`
          : `state = 'queued'`
        : giveUp
          ? `summary_state = 'failed'`
          : `summary_state = 'pending'`;
    // Not before a pause that doubles with each attempt (the lease doubles as "not before").
    const pauseSeconds = giveUp ? 0 : (options.intervalMs / 1000) * 2 ** attempts;
    await pool.query(
      `update audios set ${stateChange}, attempts = $2, error = $3, updated_at = now(),
         lease_until = case when $4::float8 > 0 then now() + make_interval(secs => $4) end
       where id = $1`,
      [audio.id, giveUp ? 0 : attempts, message, pauseSeconds],
    );
    if (giveUp) finished.inc({ step, outcome: 'failed' });
  }

  async function runRound(): Promise<boolean> {
    let audio: AudioRecord | undefined;
    try {
      audio = await lease();
    } catch (err) {
      logger.warn({ err: errorMessage(err) }, 'could not lease an audio');
      return false;
    }
    if (!audio) return false;
    const step = audio.state === 'done' ? 'summary' : 'transcription';
    const leased = audio;
    try {
      await holding(leased.id, () => (step === 'summary' ? summarize(leased) : transcribe(leased)));
    } catch (err) {
      if (err instanceof Superseded) return true;
      if (stopping.signal.aborted) {
        // Not a failure of the audio: the next replica (or start) takes it straight away.
        await pool
          .query('update audios set lease_until = null where id = $1', [leased.id])
          .catch(() => undefined);
        return false;
      }
      await failed(leased, step, err).catch((e: unknown) =>
        logger.warn({ audio: leased.id, err: errorMessage(e) }, 'could not record a failure'),
      );
    }
    return true;
  }

  return {
    start(): void {
      stopping = new AbortController();
      const tick = () => {
        // Straight on while there is work; the interval only when none was found.
        round = runRound().then(
          (worked) => {
            if (timer) timer = setTimeout(tick, worked ? 0 : options.intervalMs);
          },
          () => undefined,
        );
      };
      timer = setTimeout(tick, 0);
    },
    /** Stops after the audio under way. */
    async stop(): Promise<void> {
      const pending = timer;
      timer = undefined;
      clearTimeout(pending);
      stopping.abort();
      await round;
    },
    /** One audio now, if one waits (tests); true when one was worked on. */
    runRound,
  };
}

export type AudioWorker = ReturnType<typeof createAudioWorker>;
