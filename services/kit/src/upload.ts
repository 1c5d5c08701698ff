/**
 * Multipart uploads into a per-request temporary directory that is removed when the response
 * ends, however it ends (sent, failed, or the client went away): uploads, and files written
 * next to them, never outlive their request.
 *
 * multer (v2, on busboy) parses the form: it streams files to disk with a size limit and cleans
 * up its own partial files on a parse error; the text fields land in `req.body`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RequestHandler, Response } from 'express';
import type multerFactory from 'multer';
import { z } from 'zod';
import { HttpError } from './errors';
import type { Logger } from './logger';

/** An uploaded file on disk; only the upload middleware creates these (never request JSON). */
export class UploadedFile {
  constructor(
    readonly path: string,
    readonly originalName: string,
    readonly size: number,
  ) {}
}

/** Body schema of a file filled by `multipartUpload` (OpenAPI: a binary string). */
export function uploadedFile(message: string, description?: string) {
  return z
    .custom<UploadedFile>((value) => value instanceof UploadedFile, { message })
    .meta({ type: 'string', format: 'binary', ...(description ? { description } : {}) });
}

const WORKSPACE = 'pelitaRequestWorkspace';

/** The request's temporary directory (created by `requestWorkspace`). */
export function workspaceOf(res: Response): string {
  const dir = res.locals[WORKSPACE] as unknown;
  if (typeof dir !== 'string') {
    throw new Error('no request workspace: requestWorkspace must run first');
  }
  return dir;
}

/** Creates the request's temporary directory under `tempRoot`; removed when the response ends. */
export function requestWorkspace(tempRoot: string, logger: Logger): RequestHandler {
  return async function createRequestWorkspace(_req, res, next) {
    const dir = await mkdtemp(join(tempRoot, 'upload-'));
    res.locals[WORKSPACE] = dir;
    res.once('close', () => {
      rm(dir, { recursive: true, force: true }).catch((err: unknown) =>
        logger.error({ err, dir }, 'could not remove a request workspace'),
      );
    });
    next();
  };
}

export interface MultipartUploadOptions {
  /** The form field that carries the file(s). */
  field: string;
  /** Files accepted in that field: 1 puts one `UploadedFile` (or nothing) at `req.body[field]`, more an array. */
  maxFiles: number;
  /** Largest file accepted, in bytes (413 beyond). */
  maxBytes: number;
  maxFields?: number;
}

/**
 * Parses a multipart form into the request workspace (`requestWorkspace` must run first); the
 * file(s) of `field` go into `req.body[field]`, so the route's body schema sees them next to the
 * text fields.
 */
export function multipartUpload(options: MultipartUploadOptions): RequestHandler {
  const { field, maxFiles, maxBytes, maxFields = 30 } = options;
  let counter = 0;
  // multer is loaded by the first upload route defined (when its service is built), not by every
  // importer of the kit.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const multer = require('multer') as typeof multerFactory;
  const parse = multer({
    storage: multer.diskStorage({
      destination: (req, _file, done) => done(null, workspaceOf(req.res as Response)),
      // Names of our own: the client's file name never becomes a path.
      filename: (_req, _file, done) => done(null, `upload-${(counter += 1)}`),
    }),
    limits: {
      fileSize: maxBytes,
      files: maxFiles,
      fields: maxFields,
      fieldSize: 64 * 1024,
      parts: maxFields + maxFiles,
    },
  }).array(field, maxFiles);
  const expected =
    maxFiles === 1 ? `one file, in the field \`${field}\`` : `files in the field \`${field}\``;

  return function parseMultipartUpload(req, res, next) {
    if (!req.is('multipart/form-data')) {
      next(new HttpError(415, 'unsupported_media_type', `Send ${expected} as multipart/form-data`));
      return;
    }
    parse(req, res, (err?: unknown) => {
      if (err) return next(uploadError(err, multer.MulterError, maxBytes, expected));
      const fields = (req.body ?? {}) as Record<string, unknown>;
      const files = ((req.files ?? []) as Express.Multer.File[]).map(
        (file) => new UploadedFile(file.path, file.originalname, file.size),
      );
      req.body = { ...fields, [field]: maxFiles === 1 ? files[0] : files };
      next();
    });
  };
}

function uploadError(
  err: unknown,
  MulterError: typeof multerFactory.MulterError,
  maxBytes: number,
  expected: string,
): HttpError {
  if (err instanceof MulterError) {
    if (err.code === 'LIMIT_FILE_SIZE') {
      return new HttpError(413, 'payload_too_large', `The file exceeds ${maxBytes} bytes`);
    }
    if (err.code === 'LIMIT_UNEXPECTED_FILE') {
      return new HttpError(
        400,
        'invalid_request',
        `Unexpected file field \`${err.field ?? ''}\`: send ${expected}`,
      );
    }
    return new HttpError(400, 'invalid_request', `Invalid multipart form: ${err.message}`);
  }
  const failure = err as { syscall?: unknown; message?: unknown };
  if (typeof failure.syscall === 'string') {
    return new HttpError(500, 'internal_error', 'Internal server error', { cause: err });
  }
  const message = typeof failure.message === 'string' ? failure.message : 'unreadable body';
  return new HttpError(400, 'invalid_request', `Invalid multipart form: ${message}`, {
    cause: err,
  });
}
