/**
 * Multipart uploads into a per-request temporary directory that is removed when the response
 * ends, however it ends (sent, failed, or the client went away): the upload, and the result
 * file written next to it, never outlive their request.
 *
 * multer (v2, on busboy) parses the form: it streams the file to disk with a size limit and
 * cleans up its own partial files on a parse error; the text fields land in `req.body`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { HttpError, type Logger } from '@pelita/kit';
import type { RequestHandler, Response } from 'express';
import multer, { MulterError } from 'multer';
import { countWords } from './chunker';

/** An uploaded file on disk; only the upload middleware creates these (never request JSON). */
export class UploadedFile {
  constructor(
    readonly path: string,
    readonly originalName: string,
    readonly size: number,
  ) {}
}

const WORKSPACE = 'summarizerWorkspace';

/** The request's temporary directory (created by `requestWorkspace`). */
export function workspaceOf(res: Response): string {
  const dir = res.locals[WORKSPACE] as unknown;
  if (typeof dir !== 'string')
    throw new Error('no request workspace: requestWorkspace must run first');
  return dir;
}

export function requestWorkspace(tempRoot: string, logger: Logger): RequestHandler {
  return async function createRequestWorkspace(_req, res, next) {
    const dir = await mkdtemp(join(tempRoot, 'summarizer-'));
    res.locals[WORKSPACE] = dir;
    res.once('close', () => {
      rm(dir, { recursive: true, force: true }).catch((err: unknown) =>
        logger.error({ err, dir }, 'could not remove a request workspace'),
      );
    });
    next();
  };
}

export interface UploadOptions {
  maxBytes: number;
}

/**
 * Parses a multipart form with at most one file, in field `file`; puts that file (or nothing)
 * at `req.body.file`, so the route's body schema sees it next to the text fields.
 */
export function singleFileUpload({ maxBytes }: UploadOptions): RequestHandler {
  const parse = multer({
    storage: multer.diskStorage({
      destination: (req, _file, done) => done(null, workspaceOf(req.res as Response)),
      filename: (_req, _file, done) => done(null, 'upload'),
    }),
    limits: { fileSize: maxBytes, files: 1, fields: 20, fieldSize: 64 * 1024, parts: 21 },
  }).single('file');

  return function parseMultipartUpload(req, res, next) {
    if (!req.is('multipart/form-data')) {
      next(
        new HttpError(
          415,
          'unsupported_media_type',
          'Send the file as multipart/form-data, in the field `file`',
        ),
      );
      return;
    }
    parse(req, res, (err?: unknown) => {
      if (err) return next(uploadError(err, maxBytes));
      const fields = (req.body ?? {}) as Record<string, unknown>;
      const file = req.file;
      req.body = {
        ...fields,
        file: file ? new UploadedFile(file.path, file.originalname, file.size) : undefined,
      };
      next();
    });
  };
}

function uploadError(err: unknown, maxBytes: number): HttpError {
  if (err instanceof MulterError) {
    if (err.code === 'LIMIT_FILE_SIZE') {
      return new HttpError(413, 'payload_too_large', `The file exceeds ${maxBytes} bytes`);
    }
    if (err.code === 'LIMIT_UNEXPECTED_FILE') {
      return new HttpError(
        400,
        'invalid_request',
        `Unexpected file field \`${err.field ?? ''}\`: send one file, in the field \`file\``,
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

/**
 * The uploaded text: UTF-8 (a byte order mark is dropped) or UTF-16 with its byte order mark.
 * Empty files, files without a word, and bytes that are not such text are answered 400.
 */
export async function readTextUpload(file: UploadedFile): Promise<string> {
  if (file.size === 0) throw new HttpError(400, 'empty_file', 'The uploaded file is empty');
  const bytes = await readFile(file.path);
  const text = decodeText(bytes);
  if (text === undefined || text.includes('\u0000')) {
    throw new HttpError(400, 'not_text', 'The uploaded file is not UTF-8 or UTF-16 text');
  }
  if (countWords(text) === 0) {
    throw new HttpError(400, 'empty_file', 'The uploaded file contains no words');
  }
  return text;
}

export function decodeText(bytes: Uint8Array): string | undefined {
  const [first, second] = bytes;
  let encoding = 'utf-8';
  if (first === 0xff && second === 0xfe) encoding = 'utf-16le';
  else if (first === 0xfe && second === 0xff) encoding = 'utf-16be';
  try {
    // `ignoreBOM: false` (the default) drops the byte order mark.
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
