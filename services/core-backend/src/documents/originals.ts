/**
 * Uploaded originals, kept in object storage (`{prefix}/{id}`: `core-documents/` for documents,
 * `core-audios/` for recordings) so they can be processed again without asking for the file
 * again. Documents work without S3 settings (re-processing an upload then answers 409); audios
 * need it (the worker transcribes from the stored recording).
 */
import type { ObjectStore } from '@pelita/kit/object-store';

const DOCUMENT_ORIGINALS = 'core-documents';

/** Where a document's uploaded original is kept, also before it is recorded on the document. */
export const documentOriginalKey = (id: string) => `${DOCUMENT_ORIGINALS}/${id}`;

export function createOriginals(store: ObjectStore, prefix = DOCUMENT_ORIGINALS) {
  return {
    ensureBucket: () => store.ensureBucket(),
    /** Streams the staged upload at `path` to the original's key; returns the key. */
    async put(id: string, path: string): Promise<string> {
      const key = `${prefix}/${id}`;
      await store.putFile(key, path);
      return key;
    },
    download: (key: string, path: string) => store.getFile(key, path),
    remove: (key: string) => store.remove(key),
  };
}

export type Originals = ReturnType<typeof createOriginals>;
