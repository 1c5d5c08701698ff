/**
 * Documents and their results decide access themselves: a viewer reads, never adds, changes or
 * deletes; an outsider sees nothing. Refusals come before any query, upload or OCR request.
 */
import type { DocumentRepository } from '../../src/documents/document-repository';
import { createDocumentResults } from '../../src/documents/document-results';
import { createDocuments, type DocumentsDeps } from '../../src/documents/documents';
import { fakeWorkspaces, outsider, refused, untouched, viewer } from './access-fakes';

const DOCUMENT = '00000000-0000-4000-8000-0000000000cc';

function setup() {
  const workspaces = fakeWorkspaces();
  const data = untouched();
  const reached = (name: string) => () => {
    data.uses.push(name);
    return Promise.reject(new Error(`${name} was reached`));
  };
  const repository = data.repository<DocumentRepository>();
  const deps = {
    repository,
    access: data.access,
    workspaces,
    knowledge: new Proxy({}, { get: (_t, key) => reached(`knowledge.${String(key)}`) }),
    ocr: { submitFile: reached('ocr'), submitUrl: reached('ocr') },
    artifacts: { remove: reached('artifacts') },
    originals: { put: reached('originals'), download: reached('originals') },
    deletions: { document: reached('deletions') },
  } as unknown as DocumentsDeps;
  const documents = createDocuments(deps);
  const results = createDocumentResults({
    repository,
    documents,
    knowledge: deps.knowledge,
  });
  return { workspaces, data, documents, results };
}
type Setup = ReturnType<typeof setup>;
const input = { name: 'd.pdf', folderId: null, options: {} } as never;

describe('documents and access', () => {
  it.each([
    ['mayAdd', ({ documents }: Setup) => documents.mayAdd(viewer)],
    [
      'upload',
      ({ documents }: Setup) =>
        documents.upload(viewer, { path: '/tmp/x', name: 'd.pdf', size: 1 }, input),
    ],
    ['fromUrl', ({ documents }: Setup) => documents.fromUrl(viewer, 'https://a.test/d', input)],
    ['update', ({ documents }: Setup) => documents.update(viewer, DOCUMENT, { name: 'n' })],
    ['reprocess', ({ documents }: Setup) => documents.reprocess(viewer, DOCUMENT)],
    ['remove', ({ documents }: Setup) => documents.remove(viewer, DOCUMENT)],
  ])(
    'refuses a viewer %s with 403 (knowledge.write) before touching anything',
    async (_n, call) => {
      const context = setup();
      await expect(call(context)).rejects.toEqual(refused(403));
      expect(context.workspaces.asked).toEqual(['knowledge.write']);
      expect(context.data.uses).toEqual([]);
    },
  );

  it.each([
    ['list', ({ documents }: Setup) => documents.list(outsider, { page: 1, limit: 10 })],
    ['find', ({ documents }: Setup) => documents.find(outsider, DOCUMENT)],
    [
      'ocrResult',
      ({ results }: Setup) => results.ocrResult(outsider, DOCUMENT, { page: 1, limit: 10 }),
    ],
    ['summary', ({ results }: Setup) => results.summary(outsider, DOCUMENT)],
  ])('answers an outsider %s with 404 (knowledge.read) before any query', async (_n, call) => {
    const context = setup();
    await expect(call(context)).rejects.toEqual(refused(404));
    expect(context.workspaces.asked).toEqual(['knowledge.read']);
    expect(context.data.uses).toEqual([]);
  });

  it("lets a viewer read: the document's access list is asked next", async () => {
    const { documents, data } = setup();
    await expect(documents.find(viewer, DOCUMENT)).rejects.toThrow(
      'access.requireVisible was reached',
    );
    expect(data.uses).toEqual(['access.requireVisible']);
  });
});
