/** Poppler's TSV (`pdftotext -tsv`) read into pages and blocks. */
import { parsePopplerTsv } from '../../src/pdf-text';

const HEADER =
  'level\tpage_num\tpar_num\tblock_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext';
const row = (level: number, page: number, box: number[], text: string) =>
  [level, page, 0, 0, 0, 0, ...box, level === 5 ? 100 : -1, text].join('\t');

// Shaped like poppler 22's output for a two-page pdf-lib document (the second page's `left`
// is poppler's leftover from the previous word, which the parser must not take as a box).
const TSV = [
  HEADER,
  row(1, 1, [0, 0, 300, 400], '###PAGE###'),
  row(3, 1, [20, 40, 120, 13], '###FLOW###'),
  row(4, 1, [20, 40, 120, 13], '###LINE###'),
  row(5, 1, [20, 40, 36, 13], 'Alpha'),
  row(5, 1, [60, 40, 50, 13], 'heading'),
  row(3, 1, [20, 63, 110, 9], '###FLOW###'),
  row(4, 1, [20, 63, 110, 9], '###LINE###'),
  row(5, 1, [20, 63, 34, 9], 'body'),
  row(4, 1, [20, 74, 110, 9], '###LINE###'),
  row(5, 1, [20, 74, 34, 9], 'A&B'),
  row(5, 1, [60, 74, 34, 9], '<tag>'),
  row(1, 2, [124.5, 292.82, 612, 792], '###PAGE###'),
  row(1, 3, [0, 0, 612, 792], '###PAGE###'),
  row(3, 3, [10, 10, 10, 10], '###FLOW###'),
  row(4, 3, [10, 10, 10, 10], '###LINE###'),
  row(5, 3, [10, 10, 10, 10], 'last'),
  '',
].join('\n');

describe('parsePopplerTsv', () => {
  const pages = parsePopplerTsv(TSV);

  it('makes one page per page row, 0-based, with the page size', () => {
    expect(pages.map((page) => [page.index, page.width, page.height])).toEqual([
      [0, 300, 400],
      [1, 612, 792],
      [2, 612, 792],
    ]);
  });

  it('joins the words of a block across its lines, text as poppler printed it', () => {
    expect(pages[0]?.blocks.map((block) => block.text)).toEqual([
      'Alpha heading',
      'body A&B <tag>',
    ]);
  });

  it('gives each block its corners in points and its first line height', () => {
    expect(pages[0]?.blocks[0]).toMatchObject({ box: [20, 40, 140, 53], lineHeight: 13 });
    expect(pages[0]?.blocks[1]).toMatchObject({ box: [20, 63, 130, 72], lineHeight: 9 });
  });

  it('keeps pages without text, with no blocks', () => {
    expect(pages[1]?.blocks).toEqual([]);
    expect(pages[2]?.blocks.map((block) => block.text)).toEqual(['last']);
  });

  it('reads nothing from empty output', () => {
    expect(parsePopplerTsv('')).toEqual([]);
    expect(parsePopplerTsv(HEADER)).toEqual([]);
  });
});
