/**
 * The audios area: audios (routes, service, repository) and the worker that transcribes and
 * summarises them. Audios need object storage and a speech-to-text server; without either they
 * cannot be added (503) and no worker runs.
 */
import { createSummarizerClient, type Logger } from '@pelita/kit';
import type { ObjectStore } from '@pelita/kit/object-store';
import type pg from 'pg';
import type { Registry } from 'prom-client';
import type { AccessLists } from '../access/access-lists';
import type { Area } from '../area';
import { sttSettings, type Settings } from '../config';
import { createOriginals } from '../documents/originals';
import type { KnowledgeIndex } from '../retrieval/knowledge-index';
import type { MemberCheck } from '../workspaces/actor';
import type { CallerOf } from '../workspaces/caller';
import { createAudioRepository } from './audio-repository';
import { createAudioWorkRepository } from './audio-work-repository';
import { createAudioWorker, type AudioWorker } from './audio-worker';
import { createAudios, type AudiosDeps } from './audios';
import { audioRoutes } from './routes';
import { createSpeechToText } from './speech-to-text';

export function audiosArea(deps: {
  pool: pg.Pool;
  access: AccessLists;
  workspaces: MemberCheck;
  knowledge: KnowledgeIndex;
  deletions: AudiosDeps['deletions'];
  /** Unset without S3 settings. */
  objects: ObjectStore | undefined;
  callerOf: CallerOf;
  logger: Logger;
  registry: Registry;
  settings: Settings;
}): {
  area: Area;
  /** Unset without S3 or a speech-to-text server (integration tests reach in). */
  audioWorker: AudioWorker | undefined;
} {
  const { pool, knowledge, logger, settings } = deps;
  const stt = sttSettings(settings);
  const speechToText = stt && createSpeechToText(stt);
  const originals = deps.objects && createOriginals(deps.objects, 'core-audios');
  if (!speechToText || !originals) {
    logger.warn('audios cannot be added: they need S3_* and STT_BASE_URL (or BASE_URL_LOCAL)');
  } else if (!settings.URL_SUMMARIZER) {
    logger.warn('URL_SUMMARIZER is not set: audio transcripts are not summarised');
  }
  const audios = createAudios({
    repository: createAudioRepository(pool),
    access: deps.access,
    workspaces: deps.workspaces,
    knowledge,
    intake:
      speechToText && originals
        ? { originals, sttDefaults: () => speechToText.defaults() }
        : undefined,
    deletions: deps.deletions,
    queued: () => audioWorker?.wake(),
  });
  const audioWorker =
    speechToText &&
    originals &&
    createAudioWorker({
      repository: createAudioWorkRepository(pool),
      originals,
      speechToText,
      summarizer: settings.URL_SUMMARIZER
        ? createSummarizerClient({
            baseUrl: settings.URL_SUMMARIZER,
            connectTimeoutMs: 10_000,
            readTimeoutMs: settings.SUMMARIZE_TIMEOUT,
            // Attempts are counted by the audio worker (AUDIO_MAX_ATTEMPTS).
            retries: 0,
            backoffMs: 0,
            chunkSize: settings.SUMMARIZE_CHUNK_SIZE,
            targetContext: settings.SUMMARIZE_TARGET_CONTEXT,
            enableNer: settings.SUMMARIZE_NER,
          })
        : undefined,
      knowledge,
      logger,
      registry: deps.registry,
      tempDir: settings.TEMP_DIR,
      chunkWords: settings.TRANSCRIPT_CHUNK_WORDS,
      intervalMs: settings.AUDIO_POLL_INTERVAL_MS,
      idlePollMaxMs: settings.IDLE_POLL_MAX_MS,
      maxAttempts: settings.AUDIO_MAX_ATTEMPTS,
    });
  return {
    area: {
      routes: audioRoutes({
        audios,
        callerOf: deps.callerOf,
        logger,
        tempDir: settings.TEMP_DIR,
        maxUploadBytes: settings.MAX_UPLOAD_BYTES,
      }),
      async start() {
        await originals?.ensureBucket();
        audioWorker?.start();
      },
      stop: async () => audioWorker?.stop(),
    },
    audioWorker,
  };
}
