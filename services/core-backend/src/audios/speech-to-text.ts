/**
 * Speech-to-text through an OpenAI-compatible `/audio/transcriptions` server with the `openai`
 * package: `verbose_json` for segments and timings, and the diarising servers' `diarize` and
 * `suppress_numerals` fields (WhisperX and the API wrappers around it) sent in the same form.
 */
import { createReadStream } from 'node:fs';
import { describeModelError } from '@pelita/kit';
import OpenAI, { APIError, toFile } from 'openai';

export interface SpeechToTextSettings {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  diarize: boolean;
  suppressNumerals: boolean;
  language: string | undefined;
  timeoutMs: number;
}

export interface SpokenSegment {
  start: number;
  end: number;
  text: string;
  speaker: string | null;
}

export interface Transcription {
  text: string;
  language: string | null;
  duration: number | null;
  segments: SpokenSegment[];
}

/** Settings of one transcription: the install's defaults, as recorded on the audio. */
export interface TranscribeOptions {
  model: string;
  diarize: boolean;
  suppressNumerals: boolean;
  language: string | null;
}

/** File types the OpenAI transcription API takes (by extension, as it checks them). */
export const AUDIO_EXTENSIONS = [
  'flac',
  'm4a',
  'mp3',
  'mp4',
  'mpeg',
  'mpga',
  'oga',
  'ogg',
  'wav',
  'webm',
] as const;

/** A failure the next attempt cannot cure (the server refused the file or the request). */
export class RefusedAudioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedAudioError';
  }
}

interface VerboseTranscription {
  text?: string;
  language?: string;
  duration?: number;
  segments?: Array<{ start?: number; end?: number; text?: string; speaker?: string }>;
}

export function createSpeechToText(settings: SpeechToTextSettings) {
  const client = new OpenAI({
    baseURL: settings.baseUrl,
    apiKey: settings.apiKey ?? 'unused',
    timeout: settings.timeoutMs,
    // Attempts are counted by the audio worker across rounds (and replicas).
    maxRetries: 0,
  });
  return {
    defaults: (): TranscribeOptions => ({
      model: settings.model,
      diarize: settings.diarize,
      suppressNumerals: settings.suppressNumerals,
      language: settings.language ?? null,
    }),

    async transcribe(
      file: { path: string; name: string },
      options: TranscribeOptions,
      signal?: AbortSignal,
    ): Promise<Transcription> {
      const extra = { diarize: options.diarize, suppress_numerals: options.suppressNumerals };
      let answer: VerboseTranscription;
      try {
        answer = await client.audio.transcriptions.create(
          {
            file: await toFile(createReadStream(file.path), file.name),
            model: options.model,
            response_format: 'verbose_json',
            ...(options.language ? { language: options.language } : {}),
            ...(extra as object),
          },
          signal ? { signal } : {},
        );
      } catch (err) {
        const permanent =
          err instanceof APIError &&
          err.status !== undefined &&
          err.status >= 400 &&
          err.status < 500 &&
          err.status !== 408 &&
          err.status !== 429;
        const message = describeModelError(err).replace('model server', 'speech-to-text server');
        throw permanent ? new RefusedAudioError(message) : new Error(message, { cause: err });
      }
      const segments = (answer.segments ?? [])
        .filter((segment) => (segment.text ?? '').trim() !== '')
        .map((segment) => ({
          start: segment.start ?? 0,
          end: segment.end ?? segment.start ?? 0,
          text: segment.text!.trim(),
          speaker: segment.speaker ?? null,
        }));
      const text = (answer.text ?? segments.map((s) => s.text).join(' ')).trim();
      return {
        text,
        language: answer.language ?? options.language,
        duration: answer.duration ?? segments.at(-1)?.end ?? null,
        // A server that sends no segments: the whole text as one.
        segments:
          segments.length > 0 || text === ''
            ? segments
            : [{ start: 0, end: answer.duration ?? 0, text, speaker: null }],
      };
    },
  };
}

export type SpeechToText = ReturnType<typeof createSpeechToText>;
