/**
 * The shared policy data file (sync steps 2 and 4). Writes are atomic: the new content goes to a
 * temporary file in the same directory, is flushed to disk, and replaces the old file by rename,
 * so OPA (loading the file at its start) and this service never read half a document.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { PolicyDocument } from './policy-data';
import { CorruptDataFileError, DataFileError, describeError } from './sync-errors';

export interface StoredDocument {
  document: PolicyDocument;
  /** The file's exact content: what is pushed to OPA and hashed into the revision. */
  text: string;
}

export interface DataFile {
  readonly path: string;
  /** The stored document, or undefined when there is no file yet. */
  read(): Promise<StoredDocument | undefined>;
  /** Replaces the file's content; returns what was written. */
  write(document: PolicyDocument): Promise<StoredDocument>;
}

export function createDataFile(path: string): DataFile {
  const dir = dirname(path);
  return {
    path,
    async read() {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw new DataFileError(`cannot read ${path}: ${describeError(err)}`, err);
      }
      return { document: parseDocument(text, path), text };
    },
    async write(document) {
      const text = JSON.stringify(document);
      // The `.tmp` suffix keeps OPA from loading the temporary file should it watch the directory.
      const temporary = join(dir, `.${basename(path)}.${randomUUID()}.tmp`);
      try {
        await mkdir(dir, { recursive: true });
        await writeDurably(temporary, text);
        await rename(temporary, path);
        await syncDirectory(dir);
      } catch (err) {
        await unlink(temporary).catch(() => undefined);
        throw new DataFileError(`cannot write ${path}: ${describeError(err)}`, err);
      }
      return { document, text };
    },
  };
}

function parseDocument(text: string, path: string): PolicyDocument {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CorruptDataFileError(`${path} is not JSON: ${describeError(err)}`, err);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CorruptDataFileError(`${path} does not hold a JSON object`);
  }
  return parsed as PolicyDocument;
}

/** Readable by the OPA container, which may run as another user. */
const FILE_MODE = 0o644;

async function writeDurably(file: string, text: string): Promise<void> {
  const handle = await open(file, 'wx', FILE_MODE);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes the rename itself durable. Some file systems refuse to fsync a directory: that is fine. */
async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // best effort: the rename has happened either way
  } finally {
    await handle?.close();
  }
}
