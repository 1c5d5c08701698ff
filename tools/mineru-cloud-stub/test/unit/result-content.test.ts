/** MinerU's content list, full.md and layout made from poppler's pages. */
import {
  documentFromImage,
  documentFromPages,
  gridBox,
  markdownOf,
} from '../../src/result-content';
import type { PdfPage } from '../../src/pdf-text';

const PAGES: PdfPage[] = [
  {
    index: 0,
    width: 200,
    height: 400,
    blocks: [
      { text: 'Annual Report', box: [20, 40, 120, 58], lineHeight: 18 },
      { text: 'The harvest was good this year.', box: [20, 70, 180, 80], lineHeight: 10 },
    ],
  },
  { index: 1, width: 200, height: 400, blocks: [] },
  {
    index: 2,
    width: 200,
    height: 400,
    blocks: [{ text: 'Rice prices fell in Jakarta.', box: [0, 0, 200, 400], lineHeight: 10 }],
  },
];

describe('documentFromPages', () => {
  const document = documentFromPages(PAGES);

  it('lists every text block with its 0-based page and a box on the 0–1000 grid', () => {
    expect(document.contentList).toEqual([
      {
        type: 'text',
        text: 'Annual Report',
        text_level: 1,
        page_idx: 0,
        bbox: [100, 100, 600, 145],
      },
      {
        type: 'text',
        text: 'The harvest was good this year.',
        page_idx: 0,
        bbox: [100, 175, 900, 200],
      },
      { type: 'text', text: 'Rice prices fell in Jakarta.', page_idx: 2, bbox: [0, 0, 1000, 1000] },
    ]);
  });

  it('writes full.md with titles as headings and paragraphs apart', () => {
    expect(document.markdown).toBe(
      '# Annual Report\n\nThe harvest was good this year.\n\nRice prices fell in Jakarta.\n',
    );
  });

  it('gives layout.json every page with its size, empty pages included', () => {
    expect(document.layout).toMatchObject({
      pdf_info: [
        { page_idx: 0, page_size: [200, 400], para_blocks: [{ type: 'text' }, { type: 'text' }] },
        { page_idx: 1, page_size: [200, 400], para_blocks: [] },
        { page_idx: 2, page_size: [200, 400], para_blocks: [{ type: 'text' }] },
      ],
    });
  });

  it('marks no title when every line is the same height', () => {
    const flat = documentFromPages([
      {
        index: 0,
        width: 100,
        height: 100,
        blocks: [{ text: 'a', box: [0, 0, 1, 1], lineHeight: 10 }],
      },
    ]);
    expect(flat.contentList[0]).not.toHaveProperty('text_level');
  });

  it('gives an empty document for a PDF without any text', () => {
    expect(documentFromPages([{ index: 0, width: 1, height: 1, blocks: [] }])).toMatchObject({
      contentList: [],
      markdown: '',
    });
  });
});

describe('documentFromImage', () => {
  it('is one image item covering page 0, shown in full.md', () => {
    const document = documentFromImage('images/abc.png');
    expect(document.contentList).toEqual([
      {
        type: 'image',
        img_path: 'images/abc.png',
        image_caption: [],
        image_footnote: [],
        page_idx: 0,
        bbox: [0, 0, 1000, 1000],
      },
    ]);
    expect(document.markdown).toBe('![](images/abc.png)\n');
  });
});

describe('gridBox and markdownOf', () => {
  it('clamps boxes to the page and survives a page without size', () => {
    expect(gridBox([-5, 10, 250, 50], 200, 100)).toEqual([0, 100, 1000, 500]);
    expect(gridBox([1, 2, 3, 4], 0, 0)).toEqual([0, 0, 0, 0]);
  });

  it('writes deeper titles with more hashes', () => {
    expect(
      markdownOf([{ type: 'text', text: 'Sub', text_level: 2, page_idx: 0, bbox: [0, 0, 0, 0] }]),
    ).toBe('## Sub\n');
  });
});
