/**
 * /api/workspaces/:id/audios: upload a recording, follow its transcription, read the transcript,
 * its speaker chunks and its summary, re-process, rename, delete.
 */
import { HttpError, itemRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import { basename } from 'node:path';
import type { Audios } from './audios';
import { AUDIO_EXTENSIONS } from './speech-to-text';
import { workspaceResource } from '../workspaces/collection-routes';
import { uploadRoute, type UploadSettings } from '../documents/upload-routes';
import { Paging } from '../http-schemas';
import {
  AudioList,
  AudioParams,
  AudioPatch,
  AudioQuery,
  AudioResponse,
  AudioSummaryResponse,
  AudioUploadForm,
  toAudioResponse,
  TranscriptChunkList,
  TranscriptResponse,
} from './schemas';

export interface AudioRouteDeps extends UploadSettings {
  audios: Audios;
}

export function audioRoutes(deps: AudioRouteDeps): RouteDefinition[] {
  const { audios } = deps;
  const tags = ['audios'];
  const one = { description: 'The audio', schema: AudioResponse };
  const missing = 'No such workspace or audio (or not shared with the caller)';
  const path = '/api/workspaces/:workspaceId/audios';

  const resource = workspaceResource(deps.callerOf, {
    segment: 'audios',
    params: AudioParams,
    one: { ...one, from: toAudioResponse },
    missing,
  });

  return [
    ...resourceRoutes(
      resource,
      {
        list: {
          summary: 'Audios the caller may use, newest first',
          page: { description: 'A page of audios', schema: AudioList },
          query: AudioQuery,
        },
        show: { summary: 'One audio with its transcription and summary state' },
        change: {
          summary: 'Rename an audio',
          body: AudioPatch,
          run: (caller, { audioId }, body) => audios.rename(caller, audioId, body.name),
        },
        remove: {
          summary: 'Delete an audio with its transcript, chunks, summary, passages and recording',
        },
      },
      audios,
    ),
    uploadRoute(deps, {
      path,
      summary:
        'Upload a recording (multipart `file`); it is transcribed and summarised in the background',
      tags,
      form: AudioUploadForm,
      one,
      missing,
      unsupported: `Not multipart/form-data, or not a recording (${AUDIO_EXTENSIONS.join(', ')})`,
      unavailable: 'No object storage or speech-to-text server is configured',
      mayAdd: audios.mayAdd,
      add: async (caller, form) => {
        const fileName = basename(form.file.originalName || 'recording');
        const extension = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase() ?? '';
        if (!(AUDIO_EXTENSIONS as readonly string[]).includes(extension)) {
          throw new HttpError(
            415,
            'unsupported_audio',
            `A recording's file name ends in one of: ${AUDIO_EXTENSIONS.join(', ')}`,
          );
        }
        const audio = await audios.upload(
          caller,
          { path: form.file.path, fileName, size: form.file.size },
          { name: form.name ?? fileName, ...(form.language ? { language: form.language } : {}) },
        );
        return toAudioResponse(audio);
      },
    }),
    itemRoute(resource, {
      method: 'post',
      path: '/reprocess',
      summary: "Transcribe and summarise again with the install's current speech-to-text settings",
      answer: one,
      answers: {
        409: 'Still being transcribed',
        503: 'No speech-to-text server is configured',
      },
      run: async (caller, { audioId }) => toAudioResponse(await audios.reprocess(caller, audioId)),
    }),
    itemRoute(resource, {
      method: 'get',
      path: '/transcript',
      summary: 'The transcript ("audio document"): speaker turns, language, duration',
      answer: { description: 'The transcript', schema: TranscriptResponse },
      answers: { 404: 'No such audio, or not transcribed (yet)' },
      run: async (caller, { audioId }) => {
        const transcript = await audios.transcript(caller, audioId);
        if (!transcript) {
          throw new HttpError(404, 'transcript_not_found', 'The audio has no transcript yet');
        }
        return { audio_id: audioId, ...transcript };
      },
    }),
    itemRoute(resource, {
      method: 'get',
      path: '/chunks',
      summary: 'The transcript chunks as indexed for retrieval, with speaker and times',
      query: Paging,
      answer: { description: 'A page of chunks', schema: TranscriptChunkList },
      run: async (caller, { audioId }, { query }) => {
        const { rows, total } = await audios.chunks(caller, audioId, query);
        return { data: rows, total, page: query.page, limit: query.limit };
      },
    }),
    itemRoute(resource, {
      method: 'get',
      path: '/summary',
      summary: "The transcript's summary, key points, topics and named entities",
      answer: { description: 'The summary', schema: AudioSummaryResponse },
      answers: { 404: 'No such audio, or no summary (yet)' },
      run: async (caller, { audioId }) => {
        const summary = await audios.summary(caller, audioId);
        if (!summary) throw new HttpError(404, 'summary_not_found', 'The audio has no summary yet');
        return {
          audio_id: audioId,
          summary: summary.summary,
          key_points: summary.key_points,
          topics: summary.topics,
          named_entities: summary.named_entities,
          created_at: summary.created_at.toISOString(),
        };
      },
    }),
  ];
}
