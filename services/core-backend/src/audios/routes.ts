/**
 * /api/workspaces/:id/audios: upload a recording, follow its transcription, read the transcript,
 * its speaker chunks and its summary, re-process, rename, delete.
 */
import { defineRoute, HttpError, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import { basename } from 'node:path';
import type { Audios } from './audios';
import { AUDIO_EXTENSIONS } from './speech-to-text';
import { actorOf, type CallerOf } from '../workspaces/caller';
import { uploadRoute, type UploadSettings } from '../documents/upload-routes';
import { Paging, WorkspaceParams } from '../http-schemas';
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
  const missing = { description: 'No such workspace or audio (or not shared with the caller)' };
  const actor = (req: Parameters<CallerOf>[0], workspaceId: string) =>
    actorOf(deps.callerOf, req, workspaceId);
  const path = '/api/workspaces/:workspaceId/audios';

  return [
    ...resourceRoutes(
      {
        tags,
        path,
        item: '/:audioId',
        params: { collection: WorkspaceParams, item: AudioParams },
        caller: (req, params) => actor(req, params.workspaceId),
        one: { ...one, from: toAudioResponse },
        missing: missing.description,
      },
      {
        list: {
          summary: 'Audios the caller may use, newest first',
          page: { description: 'A page of audios', schema: AudioList },
          query: AudioQuery,
          run: (caller, query) => audios.list(caller, query),
        },
        show: {
          summary: 'One audio with its transcription and summary state',
          run: (caller, { audioId }) => audios.find(caller, audioId),
        },
        change: {
          summary: 'Rename an audio',
          body: AudioPatch,
          run: (caller, { audioId }, body) => audios.rename(caller, audioId, body.name),
        },
        remove: {
          summary: 'Delete an audio with its transcript, chunks, summary, passages and recording',
          run: (caller, { audioId }) => audios.remove(caller, audioId),
        },
      },
    ),
    uploadRoute(deps, {
      path,
      summary:
        'Upload a recording (multipart `file`); it is transcribed and summarised in the background',
      tags,
      form: AudioUploadForm,
      one,
      missing: missing.description,
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
    defineRoute({
      method: 'post',
      path: `${path}/:audioId/reprocess`,
      summary: "Transcribe and summarise again with the install's current speech-to-text settings",
      tags,
      request: { params: AudioParams },
      responses: {
        200: one,
        404: missing,
        409: { description: 'Still being transcribed' },
        503: { description: 'No speech-to-text server is configured' },
      },
      handler: async ({ params }, req) =>
        toAudioResponse(
          await audios.reprocess(await actor(req, params.workspaceId), params.audioId),
        ),
    }),
    defineRoute({
      method: 'get',
      path: `${path}/:audioId/transcript`,
      summary: 'The transcript ("audio document"): speaker turns, language, duration',
      tags,
      request: { params: AudioParams },
      responses: {
        200: { description: 'The transcript', schema: TranscriptResponse },
        404: { description: 'No such audio, or not transcribed (yet)' },
      },
      handler: async ({ params }, req) => {
        const transcript = await audios.transcript(
          await actor(req, params.workspaceId),
          params.audioId,
        );
        if (!transcript) {
          throw new HttpError(404, 'transcript_not_found', 'The audio has no transcript yet');
        }
        return { audio_id: params.audioId, ...transcript };
      },
    }),
    defineRoute({
      method: 'get',
      path: `${path}/:audioId/chunks`,
      summary: 'The transcript chunks as indexed for retrieval, with speaker and times',
      tags,
      request: { params: AudioParams, query: Paging },
      responses: {
        200: { description: 'A page of chunks', schema: TranscriptChunkList },
        404: missing,
      },
      handler: async ({ params, query }, req) => {
        const { rows, total } = await audios.chunks(
          await actor(req, params.workspaceId),
          params.audioId,
          query,
        );
        return { data: rows, total, page: query.page, limit: query.limit };
      },
    }),
    defineRoute({
      method: 'get',
      path: `${path}/:audioId/summary`,
      summary: "The transcript's summary, key points, topics and named entities",
      tags,
      request: { params: AudioParams },
      responses: {
        200: { description: 'The summary', schema: AudioSummaryResponse },
        404: { description: 'No such audio, or no summary (yet)' },
      },
      handler: async ({ params }, req) => {
        const summary = await audios.summary(await actor(req, params.workspaceId), params.audioId);
        if (!summary) throw new HttpError(404, 'summary_not_found', 'The audio has no summary yet');
        return {
          audio_id: params.audioId,
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
