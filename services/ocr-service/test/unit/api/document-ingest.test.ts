import { HttpError } from '@pelita/kit';
import { contentOfText, ingestedChunks } from '../../../src/api/document-ingest';

describe('contentOfText', () => {
  it('makes one text item per form-feed page, numbered from 1, blank pages left out', () => {
    expect(contentOfText('First page\fSecond\n\f  \fFourth\f')).toEqual([
      { page: 1, type: 'text', content: 'First page' },
      { page: 2, type: 'text', content: 'Second' },
      { page: 4, type: 'text', content: 'Fourth' },
    ]);
  });

  it('takes text without form feeds as one page', () => {
    expect(contentOfText('Just one')).toEqual([{ page: 1, type: 'text', content: 'Just one' }]);
  });

  it('refuses more than 10000 pages', () => {
    expect(() => contentOfText('x\f'.repeat(10_000))).toThrow(
      expect.objectContaining({ status: 400, code: 'too_many_pages' }),
    );
    expect(contentOfText('x\f'.repeat(9_999) + 'x')).toHaveLength(10_000);
  });
});

describe('ingestedChunks', () => {
  const at = new Date('2026-02-03T04:05:06Z');

  it('chunks the text under the given id, without a stored PDF', () => {
    const chunks = ingestedChunks(
      { id: 'doc-7', pdf_name: 'notes.pdf', text: Array(6).fill('p').join('\f') },
      at,
    );
    expect(chunks.map((chunk) => chunk.id)).toEqual(['doc-7_chunk_1', 'doc-7_chunk_2']);
    expect(chunks[1]).toEqual({
      id: 'doc-7_chunk_2',
      chunk_number: 2,
      pdf_name: 'notes.pdf',
      pdf_id: 'doc-7',
      parse_method: 'auto',
      uploaded_at: '2026-02-03T04:05:06.000Z',
      content_list: [{ page: 6, type: 'text', content: 'p' }],
      md_content_list: [],
      output_path: '2026/02',
    });
  });

  it('takes content_list and md_content_list as given, and a new UUID without an id', () => {
    const [chunk] = ingestedChunks({
      pdf_name: 'a.pdf',
      content_list: [{ page: 2, type: 'table', content: '|a|' }],
      md_content_list: [{ page: 2, markdown: '|a|' }],
      metadata_document: { k: 1 },
    });
    expect(chunk?.pdf_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(chunk).toMatchObject({
      content_list: [{ page: 2, type: 'table', content: '|a|' }],
      md_content_list: [{ page: 2, markdown: '|a|' }],
      metadata_document: { k: 1 },
    });
  });

  it('refuses a document with nothing to index', () => {
    for (const body of [
      { pdf_name: 'a.pdf', text: ' \f\n' },
      { pdf_name: 'a.pdf', content_list: [], md_content_list: [] },
    ]) {
      expect(() => ingestedChunks(body)).toThrow(HttpError);
      expect(() => ingestedChunks(body)).toThrow(
        expect.objectContaining({ code: 'empty_document' }),
      );
    }
  });
});
