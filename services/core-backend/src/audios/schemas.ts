/** Shapes of audios, their transcripts, chunks and summaries. */
import { uploadedFile } from '@pelita/kit';
import { z } from 'zod';
import type { AudioRecord } from './audio-repository';
import { Name, pageOf, Paging, Timestamp } from '../http-schemas';
import { Made, responseOf } from '../row-schemas';

const State = z.enum(['queued', 'transcribing', 'done', 'failed']);

export const AudioParams = z.object({ workspaceId: z.uuid(), audioId: z.uuid() });
export const AudioQuery = Paging.extend({ state: State.optional() });

/** Multipart form of an upload: the recording, a name, and the spoken language if known. */
export const AudioUploadForm = z.object({
  file: uploadedFile('Send the recording in the field `file`'),
  name: Name.optional(),
  /** ISO-639-1 code; unset: STT_LANGUAGE, or the server detects it. */
  language: z
    .string()
    .regex(/^[a-z]{2}$/, 'An ISO-639-1 code such as "id" or "en"')
    .optional(),
});
export const AudioPatch = z.object({ name: Name });

export const AudioResponse = z.object({
  id: z.string(),
  workspace_id: z.string(),
  name: z.string(),
  file_name: z.string(),
  size_bytes: z.number().int(),
  /** The speech-to-text settings of the latest transcription. */
  stt_model: z.string(),
  diarize: z.boolean(),
  suppress_numerals: z.boolean(),
  language: z.string().nullable(),
  state: State,
  summary_state: z.enum(['pending', 'done', 'failed', 'none']),
  /** Failed attempts of the step under way (tried again until AUDIO_MAX_ATTEMPTS). */
  attempts: z.number().int(),
  error: z.string().nullable(),
  ...Made,
  transcribed_at: Timestamp.nullable(),
});
export const AudioList = pageOf(AudioResponse);

export const toAudioResponse = responseOf(AudioResponse, (a: AudioRecord) => ({
  size_bytes: Number(a.size_bytes),
}));

export const TranscriptResponse = z.object({
  audio_id: z.string(),
  /** One line per speaker turn: `SPEAKER_00: words`. */
  text: z.string(),
  language: z.string().nullable(),
  duration_seconds: z.number().nullable(),
  speakers: z.array(z.string()),
  /** Segments the speech-to-text server returned. */
  segments: z.number().int(),
});
export const TranscriptChunkList = pageOf(
  z.object({
    position: z.number().int(),
    speaker: z.string().nullable(),
    start_seconds: z.number(),
    end_seconds: z.number(),
    text: z.string(),
  }),
);
export const AudioSummaryResponse = z.object({
  audio_id: z.string(),
  summary: z.string(),
  key_points: z.array(z.string()),
  topics: z.array(z.string()),
  named_entities: z.record(z.string(), z.unknown()),
  created_at: Timestamp,
});
