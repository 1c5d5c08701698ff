/**
 * Works audios through speech-to-text and the summarizer, from PostgreSQL: round after round
 * (spaced out while none waits, woken by an audio added here) it leases one audio waiting for a
 * transcript (or a transcribed one waiting for its summary), takes the recording from object
 * storage, and stores what comes back — transcript, speaker chunks, passages in the knowledge
 * index, then the summary. Like the document follower, the lease
 * (`lease_until`, taken with `for update skip locked`) lets replicas share the work and a dead
 * replica's audio be taken again; a heartbeat keeps it while a long recording is transcribed.
 * A failure that may pass (5xx, time-out, connection) is tried again later, with a growing
 * pause, up to AUDIO_MAX_ATTEMPTS; one that cannot (the server refused the file) fails at once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createPollLoop,
  declareSeries,
  errorMessage,
  type Logger,
  type SummarizerClient,
  SummarizerError,
} from '@pelita/kit';
import type { Registry } from 'prom-client';
import type { Originals } from '../documents/originals';
import { replaceSummaryPassage } from '../documents/summary-passage';
import type { KnowledgeIndex } from '../retrieval/knowledge-index';
import type { AudioRecord } from './audio-repository';
import type { AudioWorkRepository, HeldAudio } from './audio-work-repository';
import { RefusedAudioError, type SpeechToText } from './speech-to-text';
import { chunkTranscript, transcriptText, type TranscriptChunk } from './transcript-chunks';

export interface AudioWorkerOptions {
  repository: AudioWorkRepository;
  originals: Originals;
  speechToText: SpeechToText;
  /** Unset: transcripts get no summary (`summary_state` none). */
  summarizer: SummarizerClient | undefined;
  knowledge: KnowledgeIndex;
  logger: Logger;
  registry: Registry;
  tempDir: string;
  chunkWords: number;
  /** The wait after a round that found nothing, doubling up to `idlePollMaxMs` while none do. */
  intervalMs: number;
  idlePollMaxMs: number;
  maxAttempts: number;
  /** How long a lease lasts without a heartbeat (renewed every third of it). */
  leaseMs?: number;
}

/** The audio is gone or was handed to another step meanwhile: drop the result. */
class Superseded extends Error {}

export function createAudioWorker(options: AudioWorkerOptions) {
  const { repository, logger } = options;
  const leaseMs = options.leaseMs ?? 60_000;
  const { finished } = declareSeries(options.registry, {
    finished: {
      kind: 'counter',
      name: 'core_audio_steps_total',
      help: 'Transcriptions and summaries of audios that ended, by step and outcome',
      labels: ['step', 'outcome'],
    },
  });
  // Aborts the call under way on stop: a recording may take an hour, a shutdown may not.
  let stopping = new AbortController();

  const lease = () => repository.lease(leaseMs / 1000);

  /** Keeps the lease while `work` runs. */
  async function holding<T>(id: string, work: () => Promise<T>): Promise<T> {
    const heartbeat = setInterval(() => {
      repository
        .renewLease(id, leaseMs / 1000)
        .catch((err: unknown) => logger.warn({ audio: id, err: errorMessage(err) }, 'heartbeat'));
    }, leaseMs / 3);
    try {
      return await work();
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Runs `write` holding the audio's row, if it is still at `at`; else the result is dropped. */
  async function whileAt(
    id: string,
    at: { state: string; summary_state?: string },
    write: (held: HeldAudio) => Promise<void>,
  ): Promise<void> {
    if (!(await repository.whileAt(id, at, write))) throw new Superseded();
  }

  async function transcribe(audio: AudioRecord): Promise<void> {
    await repository.startTranscribing(audio.id);
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
      await whileAt(audio.id, { state: 'transcribing' }, async (held) => {
        await storeTranscript(held, audio, result, chunks, text);
        await held.transcribed(
          options.summarizer && text !== '' ? 'pending' : 'none',
          result.language,
        );
      });
      finished.inc({ step: 'transcription', outcome: 'done' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async function storeTranscript(
    held: HeldAudio,
    audio: AudioRecord,
    result: { language: string | null; duration: number | null; segments: unknown[] },
    chunks: TranscriptChunk[],
    text: string,
  ): Promise<void> {
    await held.storeTranscript({
      text,
      language: result.language,
      durationSeconds: result.duration,
      speakers: [...new Set(chunks.map((c) => c.speaker).filter((s) => s !== null))],
      segments: result.segments.length,
      chunks,
    });
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
    const text = await repository.transcriptText(audio.id);
    if (!summarizer || text === '') {
      await repository.noSummary(audio.id);
      return;
    }
    const result = await summarizer.summarize({ name: `${audio.id}.txt`, text }, stopping.signal);
    const final = result.final_summary;
    await whileAt(audio.id, { state: 'done', summary_state: 'pending' }, async (held) => {
      await held.storeSummary({
        summary: final.summary,
        keyPoints: final.key_points_model,
        topics: final.topics_aggregated,
        namedEntities: final.named_entities,
      });
      await replaceSummaryPassage(
        options.knowledge,
        { type: 'audio', id: audio.id, workspaceId: audio.workspace_id, title: audio.name },
        final.summary,
      );
      await held.summarized();
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
    // Not before a pause that doubles with each attempt.
    await repository.failed(audio.id, {
      step,
      giveUp,
      attempts: giveUp ? 0 : attempts,
      error: message,
      pauseSeconds: giveUp ? 0 : (options.intervalMs / 1000) * 2 ** attempts,
    });
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
        await repository.release(leased.id).catch(() => undefined);
        return false;
      }
      await failed(leased, step, err).catch((e: unknown) =>
        logger.warn({ audio: leased.id, err: errorMessage(e) }, 'could not record a failure'),
      );
    }
    return true;
  }

  // Straight on while there is work; spaced out while there is none.
  const loop = createPollLoop({
    round: async () => ((await runRound()) ? 'more' : 'idle'),
    intervalMs: options.intervalMs,
    idleMaxMs: options.idlePollMaxMs,
  });

  return {
    start(): void {
      stopping = new AbortController();
      loop.start();
    },
    /** An audio was added: look now rather than at the next (possibly distant) round. */
    wake: () => loop.wake(),
    /** Stops after the audio under way. */
    async stop(): Promise<void> {
      stopping.abort();
      await loop.stop();
    },
    /** One audio now, if one waits (tests); true when one was worked on. */
    runRound,
  };
}

export type AudioWorker = ReturnType<typeof createAudioWorker>;
