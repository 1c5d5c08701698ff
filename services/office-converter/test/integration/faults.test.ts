/**
 * What must never hang or pile up: a LibreOffice run that does not end (a stand-in `soffice` that
 * sleeps with a child) is killed with its process group and answered 504; a full queue is 429;
 * a .docx LibreOffice cannot read falls back to its text, and that fallback too ends in time
 * however its XML is shaped.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@pelita/testenv';
import {
  docxWithDocumentXml,
  officeFile,
  officeFiles,
  pdfText,
  standInTool,
  startConverter,
  type ConverterUnderTest,
} from './support/converter-under-test';

jest.setTimeout(120_000);

describe('office-converter faults', () => {
  let dir: string;
  let converter: ConverterUnderTest | undefined;
  /** The documents below, made by the real LibreOffice in one run per format (not one each). */
  let odt: Record<string, Buffer>;
  let docx: Buffer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'converter-faults-'));
    odt = await officeFiles({ 's.txt': 'x', 'q.txt': 'queued', 'l.txt': 'x' }, 'odt');
    docx = await officeFile('n.txt', 'Words kept by the fallback', 'docx:MS Word 2007 XML');
  });
  afterEach(async () => {
    await converter?.stop();
    converter = undefined;
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  // LibreOffice's faults below are about LibreOffice and the .docx fallback: pandoc, which would
  // convert these documents, is made to fail too (pandoc.test.ts has the second converter's).
  const failingPandoc = () => standInTool(dir, 'echo "pandoc: could not parse" >&2; exit 64');

  it('kills a LibreOffice run that hangs, with its children, and answers 504', async () => {
    const pids = join(dir, 'hang.pids');
    const soffice = await standInTool(dir, `sleep 60 & echo $! > ${pids}; wait`);
    converter = await startConverter({
      SOFFICE_BIN: soffice,
      PANDOC_BIN: await failingPandoc(),
      CONVERSION_TIMEOUT_MS: '500',
    });
    const res = await converter.post('/convert', [{ name: 'slow.odt', bytes: odt['s.txt']! }]);
    expect(res.status).toBe(504);
    expect(((await res.json()) as any).error.code).toBe('conversion_timeout');
    const child = Number(await readFile(pids, 'utf8'));
    const state = await readFile(`/proc/${child}/stat`, 'utf8').then(
      (stat) => stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3),
      () => 'gone',
    );
    expect(['gone', 'Z', 'X']).toContain(state);
  });

  it('answers 429 with Retry-After when every run is busy and the queue is full', async () => {
    const started = join(dir, 'busy.started');
    const soffice = await standInTool(dir, `touch ${started}; sleep 3`);
    converter = await startConverter({
      SOFFICE_BIN: soffice,
      PANDOC_BIN: await failingPandoc(),
      MAX_CONCURRENT_CONVERSIONS: '1',
      MAX_QUEUED_CONVERSIONS: '0',
      CONVERSION_TIMEOUT_MS: '10000',
    });
    const first = converter.post('/convert', [{ name: 'a.odt', bytes: odt['q.txt']! }]);
    // The first run is under way once the stand-in has started.
    await waitFor(() => readFile(started).then(() => true), 'the stand-in to start');
    const refused = await converter.post('/convert', [{ name: 'b.odt', bytes: odt['q.txt']! }]);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as any).error.code).toBe('too_many_conversions');
    // The stand-in writes no PDF: the first answer is a clear 422, not a hang.
    expect((await first).status).toBe(422);
  });

  it('falls back to the text of a .docx when LibreOffice and pandoc fail, and fails other files with 422', async () => {
    const soffice = await standInTool(dir, 'echo "source file could not be loaded" >&2; exit 1');
    converter = await startConverter({ SOFFICE_BIN: soffice, PANDOC_BIN: await failingPandoc() });
    const res = await converter.post('/convert', [{ name: 'kept.docx', bytes: docx }]);
    expect(res.status).toBe(200);
    const { text } = await pdfText(Buffer.from(await res.arrayBuffer()));
    expect(text).toContain('Words kept by the fallback');

    const other = await converter.post('/convert', [{ name: 'lost.odt', bytes: odt['l.txt']! }]);
    expect(other.status).toBe(422);
    expect(((await other.json()) as any).error.message).toContain('could not be loaded');
  });

  // 400,000 paragraphs that never close (2 MB of XML): the fallback's lazy regex took minutes
  // over them on the event loop, beyond any time limit, and the converter answered nothing else.
  it('reads the text of a .docx whose XML defeated a backtracking parser, in well under a minute', async () => {
    const soffice = await standInTool(dir, 'exit 1');
    converter = await startConverter({ SOFFICE_BIN: soffice, PANDOC_BIN: await failingPandoc() });
    const xml = '<w:p><w:r><w:t>Words kept</w:t></w:r></w:p>' + '<w:p>'.repeat(400_000);
    const started = Date.now();
    const res = await converter.post('/convert', [
      { name: 'hostile.docx', bytes: await docxWithDocumentXml(xml) },
    ]);
    expect(res.status).toBe(200);
    expect((await pdfText(Buffer.from(await res.arrayBuffer()))).text).toContain('Words kept');
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('stops a text fallback that outlasts CONVERSION_TIMEOUT_MS and answers 504', async () => {
    const soffice = await standInTool(dir, 'exit 1');
    converter = await startConverter({
      SOFFICE_BIN: soffice,
      PANDOC_BIN: await failingPandoc(),
      CONVERSION_TIMEOUT_MS: '300',
    });
    // 40,000 paragraphs: seconds of layout (the fallback lays out 10,000 lines at most).
    const xml = '<w:p><w:r><w:t>A line of words to lay out</w:t></w:r></w:p>'.repeat(40_000);
    const res = await converter.post('/convert', [
      { name: 'long.docx', bytes: await docxWithDocumentXml(xml) },
    ]);
    expect(res.status).toBe(504);
    expect(((await res.json()) as any).error).toEqual({
      code: 'conversion_timeout',
      message: 'The text of long.docx could not be read within 300 ms',
    });
  });
});
