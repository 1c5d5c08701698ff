/** What the documents service does with its repository and the OCR service, for an editor. */
import type { DocumentRecord, DocumentRepository } from '../../src/documents/document-repository';
import { createDocuments, type DocumentsDeps } from '../../src/documents/documents';
import { editor, editorWorkspace, fakeRepository, openAccess } from './knowledge-fakes';

const DOCUMENT = '00000000-0000-4000-8000-0000000000cc';
const options = { processing: 'local', typeOcr: 'ekstrak_only' } as const;

function documentsWith(repository: Partial<DocumentRepository>, deps: Partial<DocumentsDeps>) {
  const { access, asked } = openAccess();
  const documents = createDocuments({
    repository: fakeRepository<DocumentRepository>(repository),
    access,
    workspaces: editorWorkspace,
    ocr: undefined,
    originals: undefined,
    ...deps,
  } as DocumentsDeps);
  return { documents, asked };
}

describe('documents service', () => {
  it('leaves nothing behind when the OCR service refuses a URL: the record is deleted', async () => {
    const deleted: string[] = [];
    const { documents, asked } = documentsWith(
      { insert: () => Promise.resolve() },
      {
        ocr: { submitUrl: () => Promise.reject(new Error('refused')) } as never,
        deletions: { document: (id) => Promise.resolve(void deleted.push(id)) },
      },
    );
    await expect(
      documents.fromUrl(editor, 'https://a.test/d.pdf', { name: 'd', folderId: null, options }),
    ).rejects.toThrow('refused');
    expect(asked).toEqual([['createGranted', 'document', expect.any(String)]]);
    expect(deleted).toEqual([asked[0]![2]]);
  });

  it('answers 503 when no OCR service is configured, before recording anything', async () => {
    const { documents, asked } = documentsWith({}, {});
    await expect(
      documents.fromUrl(editor, 'https://a.test/d.pdf', { name: 'd', folderId: null, options }),
    ).rejects.toMatchObject({ status: 503 });
    expect(asked).toEqual([]);
  });

  it.each([
    ['still being processed', { state: 'processing', source: 'url' }],
    ['an upload whose original was not kept', { state: 'done', source: 'upload' }],
  ])('refuses to re-process a document %s (409)', async (_why, found) => {
    const { documents } = documentsWith(
      {
        byId: () =>
          Promise.resolve({ id: DOCUMENT, original_key: null, ...found } as DocumentRecord),
      },
      { ocr: {} as never },
    );
    await expect(documents.reprocess(editor, DOCUMENT)).rejects.toMatchObject({ status: 409 });
  });
});
