/**
 * A task's inputs as the API takes them: an uploaded file, checked before anything is queued
 * (what the converter could not read is refused now, not after a wait in the queue), or a URL.
 */
import { basename, extname } from 'node:path';
import {
  HttpError,
  inputKind,
  UnsupportedInputError,
  type InputKind,
  type UploadedFile,
} from '@pelita/kit';

export type SubmittedInput =
  | { kind: 'upload'; path: string; name: string; contentType: string }
  | { kind: 'url'; url: string };

const CONTENT_TYPES: Record<InputKind, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpeg: 'image/jpeg',
  image: 'application/octet-stream',
  office: 'application/octet-stream',
};

/** The extension of an upload sent without one, from what its bytes are (the worker goes by it). */
const EXTENSIONS: Partial<Record<InputKind, string>> = { pdf: '.pdf', png: '.png', jpeg: '.jpg' };

/** The uploaded file, checked: 400 when empty, 415 when not a document the pipeline reads. */
export async function uploadInput(file: UploadedFile): Promise<SubmittedInput> {
  // The client's path (`C:\scans\a.pdf`) is not part of the name.
  const given = basename(file.originalName.replace(/\\/g, '/'));
  const shown = given || 'the uploaded file';
  if (file.size === 0) throw new HttpError(400, 'empty_file', `${shown} is empty`);
  let kind: InputKind;
  try {
    kind = await inputKind(file.path, given);
  } catch (err) {
    if (err instanceof UnsupportedInputError) {
      throw new HttpError(415, 'unsupported_file_type', err.message);
    }
    throw err;
  }
  const name = extname(given) ? given : `${given || 'document'}${EXTENSIONS[kind] ?? ''}`;
  return { kind: 'upload', path: file.path, name, contentType: CONTENT_TYPES[kind] };
}

export const urlInput = (url: string): SubmittedInput => ({ kind: 'url', url });

/** The seed's `pdf_name` of a URL task: the URL's last path segment, else `document.pdf`. */
export function nameOfUrl(url: string): string {
  const segment = new URL(url).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(segment) || 'document.pdf';
  } catch {
    return segment || 'document.pdf';
  }
}

export const nameOf = (input: SubmittedInput) =>
  input.kind === 'upload' ? input.name : nameOfUrl(input.url);
