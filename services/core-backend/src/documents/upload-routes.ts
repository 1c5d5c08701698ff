/**
 * The POST of a workspace collection that takes one uploaded file (multipart `file`): documents
 * and audios. The caller is asked first (`memberFirst`), then the upload is staged under the
 * request's workspace directory and parsed; the handler hands the form to one domain call.
 */
import {
  defineRoute,
  multipartUpload,
  requestWorkspace,
  type Logger,
  type ResponseSpec,
  type RouteDefinition,
} from '@pelita/kit';
import type { z } from 'zod';
import { WorkspaceParams } from '../http-schemas';
import type { Actor } from '../workspaces/actor';
import { actorOf, type CallerOf } from '../workspaces/caller';
import { memberFirst } from './member-first';

/** Where uploads are staged and how large they may be (TEMP_DIR, MAX_UPLOAD_BYTES). */
export interface UploadSettings {
  callerOf: CallerOf;
  logger: Logger;
  tempDir: string;
  maxUploadBytes: number;
}

export function uploadRoute<F extends z.ZodType>(
  settings: UploadSettings,
  route: {
    path: string;
    summary: string;
    tags: string[];
    form: F;
    /** The created item (201). */
    one: ResponseSpec;
    /** Why a 404, 415 and 503. */
    missing: string;
    unsupported: string;
    unavailable: string;
    /** Refuses (404, 403) a caller who may not add: asked before the upload is read. */
    mayAdd: (actor: Actor) => Promise<void>;
    add: (actor: Actor, form: z.output<F>) => Promise<unknown>;
  },
): RouteDefinition {
  return defineRoute({
    method: 'post',
    path: route.path,
    summary: route.summary,
    tags: route.tags,
    successStatus: 201,
    before: [
      memberFirst(route.mayAdd, settings.callerOf),
      requestWorkspace(settings.tempDir, settings.logger),
      multipartUpload({ field: 'file', maxFiles: 1, maxBytes: settings.maxUploadBytes }),
    ],
    request: {
      params: WorkspaceParams,
      body: route.form,
      bodyContentType: 'multipart/form-data',
    },
    responses: {
      201: route.one,
      404: { description: route.missing },
      413: { description: 'The file is larger than MAX_UPLOAD_BYTES' },
      415: { description: route.unsupported },
      503: { description: route.unavailable },
    },
    handler: async ({ params, body }, req) =>
      route.add(await actorOf(settings.callerOf, req, params.workspaceId), body as z.output<F>),
  });
}
