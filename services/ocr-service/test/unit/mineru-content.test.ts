import { toSeedLists } from '../../src/engines/mineru-content';

describe("MinerU's content list to the seed's lists", () => {
  it('makes blocks {page, type, content} with pages from 1, and one Markdown text per page', () => {
    const output = toSeedLists([
      { type: 'text', text: 'Annual report', text_level: 1, page_idx: 0 },
      { type: 'text', text: 'Revenue rose.', page_idx: 0 },
      { type: 'image', img_path: 'images/a.png', image_caption: ['A rising chart.'], page_idx: 0 },
      {
        type: 'table',
        table_caption: ['Totals'],
        table_body: '<table><tr><td>1</td></tr></table>',
        page_idx: 2,
      },
      { type: 'equation', latex: 'E = mc^2', page_idx: 2 },
      { type: 'text', text: '   ', page_idx: 1 },
    ]);
    expect(output.contentList).toEqual([
      { page: 1, type: 'text', content: 'Annual report' },
      { page: 1, type: 'text', content: 'Revenue rose.' },
      { page: 1, type: 'image', content: 'A rising chart.' },
      { page: 3, type: 'table', content: 'Totals\n<table><tr><td>1</td></tr></table>' },
      { page: 3, type: 'equation', content: 'E = mc^2' },
      { page: 2, type: 'text', content: '   ' },
    ]);
    expect(output.mdContentList).toEqual([
      {
        page: 1,
        markdown: '# Annual report\n\nRevenue rose.\n\n![](images/a.png)\n\nA rising chart.',
      },
      { page: 3, markdown: 'Totals\n<table><tr><td>1</td></tr></table>\n\nE = mc^2' },
    ]);
  });
});
