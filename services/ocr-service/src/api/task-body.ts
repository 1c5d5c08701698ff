/**
 * The bodies the task endpoints take: a multipart form (files into the request workspace), no
 * body at all (a task given by `url_file` alone), and on `POST /api/v1/pdfs` a JSON body, which
 * the seed takes as the `metadata_document` itself.
 */
import { HttpError, multipartUpload, type MultipartUploadOptions } from '@pelita/kit';
import type { Request, RequestHandler } from 'express';

export interface TaskBodyOptions extends MultipartUploadOptions {
  /** The field holds a list of files, also when `maxFiles` is 1 (merge, bulk upload). */
  list: boolean;
  /** Accept a JSON body as the metadata (`POST /api/v1/pdfs` only). */
  jsonMetadata?: boolean;
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Runs after the kit's `requestWorkspace`; leaves the form fields in `req.body`. */
export function taskBody(options: TaskBodyOptions): RequestHandler {
  const { list, jsonMetadata = false, ...upload } = options;
  const parseForm = multipartUpload(upload);
  const accepted = jsonMetadata ? 'multipart/form-data or application/json' : 'multipart/form-data';

  return function readTaskBody(req, res, next) {
    if (!hasBody(req)) {
      req.body = {};
      next();
    } else if (req.is('multipart/form-data')) {
      parseForm(req, res, (err?: unknown) => {
        if (err) return next(err);
        // The kit puts a lone file at the field when only one is allowed.
        const body = req.body as Record<string, unknown>;
        const files = body[upload.field];
        if (list && !Array.isArray(files)) body[upload.field] = files === undefined ? [] : [files];
        next();
      });
    } else if (jsonMetadata && req.is('application/json')) {
      // Handed to the same check as the form field: it must be a JSON object.
      req.body = { metadata_document: JSON.stringify(req.body) };
      next();
    } else {
      next(new HttpError(415, 'unsupported_media_type', `Send the body as ${accepted}`));
    }
  };
}
