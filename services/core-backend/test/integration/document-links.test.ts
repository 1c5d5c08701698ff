/**
 * A document's `pdf_url` keeps working after the link the OCR service signed has expired: the core
 * backend renews a link near its end before handing it out (the ocr-service here signs for 4 s, as
 * it signs for a week by default), and the renewed link reads the PDF from the real MinIO.
 */
import { waitFor } from '@pelita/testenv';
import { textPdf } from '../../../ocr-service/test/integration/support/documents';
import { expectJson, type TestUser } from './support/core-stack';
import { startDocumentStack, type DocumentStack } from './support/document-stack';

interface Doc {
  id: string;
  state: string;
  pdf_url: string | null;
}

const TTL_SECONDS = 4;

describe("a document's PDF link", () => {
  let stack: DocumentStack;
  let owner: TestUser;
  let workspaceId: string;

  beforeAll(async () => {
    stack = await startDocumentStack({}, { OUTPUT_URL_TTL_SECONDS: String(TTL_SECONDS) });
    owner = await stack.core.admin();
    workspaceId = (
      await expectJson<{ id: string }>(
        stack.core.call('POST', '/api/workspaces', owner.token, { name: 'Links' }),
        201,
      )
    ).id;
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  const get = (path: string) =>
    stack.core.call('GET', `/api/workspaces/${workspaceId}${path}`, owner.token);
  const signedAt = (url: string) => new URL(url).searchParams.get('X-Amz-Date');
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('is renewed once the signed one nears its end, in the document and in the list', async () => {
    const form = new FormData();
    form.append(
      'file',
      new Blob([new Uint8Array(await textPdf(1, () => 'Heron count.'))]),
      'h.pdf',
    );
    const created = await expectJson<Doc>(
      fetch(`${stack.core.url}/api/workspaces/${workspaceId}/documents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}` },
        body: form,
      }),
      201,
    );
    const doc = await waitFor(
      async () => {
        const read = await expectJson<Doc>(get(`/documents/${created.id}`), 200);
        return read.state === 'done' || read.state === 'failed' ? read : undefined;
      },
      { what: 'the document processed', timeoutMs: 120_000, intervalMs: 200 },
    );
    expect(doc.state).toBe('done');
    const first = doc.pdf_url!;
    expect((await fetch(first)).status).toBe(200);

    // Past its lifetime the first link is refused by the storage; the document's is not.
    await sleep((TTL_SECONDS + 1) * 1000);
    expect((await fetch(first)).status).toBe(403);
    const renewed = await expectJson<Doc>(get(`/documents/${created.id}`), 200);
    expect(signedAt(renewed.pdf_url!)).not.toBe(signedAt(first));
    const pdf = await fetch(renewed.pdf_url!);
    expect(pdf.status).toBe(200);
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    await sleep((TTL_SECONDS + 1) * 1000);
    const listed = await expectJson<{ data: Doc[] }>(get('/documents'), 200);
    const inList = listed.data.find((entry) => entry.id === created.id)!;
    expect((await fetch(inList.pdf_url!)).status).toBe(200);
  }, 180_000);
});
