/** The uploaded text file (the kit's `multipartUpload` puts it on disk): decoded and checked. */
import { readFile } from 'node:fs/promises';
import { HttpError, type UploadedFile } from '@pelita/kit';
import { countWords } from './chunker';

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
