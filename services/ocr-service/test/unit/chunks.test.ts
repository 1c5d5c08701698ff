import { chunkDocuments, outputPathOf } from '../../src/results/chunks';

const pages = (count: number) => ({
  contentList: Array.from({ length: count }, (_, i) => ({
    page: i + 1,
    type: 'text',
    content: `p${i + 1}`,
  })),
  mdContentList: Array.from({ length: count }, (_, i) => ({
    page: i + 1,
    markdown: `# p${i + 1}`,
  })),
});
const source = {
  taskId: 'task-9',
  pdfName: 'report.pdf',
  uploadedAt: new Date('2026-03-05T10:00:00Z'),
  outputPdfFile: undefined,
  metadataDocument: undefined,
};

describe('chunkDocuments', () => {
  it('splits 12 pages into 3 documents of 5, 5 and 2 pages with the seed fields', () => {
    const chunks = chunkDocuments(pages(12), source);
    expect(chunks.map((c) => [c.id, c.chunk_number, c.content_list.map((i) => i.page)])).toEqual([
      ['task-9_chunk_1', 1, [1, 2, 3, 4, 5]],
      ['task-9_chunk_2', 2, [6, 7, 8, 9, 10]],
      ['task-9_chunk_3', 3, [11, 12]],
    ]);
    expect(chunks[2]).toEqual({
      id: 'task-9_chunk_3',
      chunk_number: 3,
      pdf_name: 'report.pdf',
      pdf_id: 'task-9',
      parse_method: 'auto',
      uploaded_at: '2026-03-05T10:00:00.000Z',
      content_list: [
        { page: 11, type: 'text', content: 'p11' },
        { page: 12, type: 'text', content: 'p12' },
      ],
      md_content_list: [
        { page: 11, markdown: '# p11' },
        { page: 12, markdown: '# p12' },
      ],
      output_path: '2026/03',
    });
  });

  it('adds the stored PDF and the caller metadata when there are some; an empty result is one chunk', () => {
    const [chunk, ...rest] = chunkDocuments(
      { contentList: [], mdContentList: [] },
      {
        ...source,
        outputPdfFile: 'http://s3/ocr-documents/task-9.pdf',
        metadataDocument: { source: 'crm' },
      },
    );
    expect(rest).toEqual([]);
    expect(chunk).toMatchObject({
      id: 'task-9_chunk_1',
      output_pdf_file: 'http://s3/ocr-documents/task-9.pdf',
      metadata_document: { source: 'crm' },
      content_list: [],
    });
  });

  it('names the output folder by year and month (UTC)', () => {
    expect(outputPathOf(new Date('2026-12-31T23:59:59Z'))).toBe('2026/12');
  });
});
