import { normaliseBox, toMarkdown } from '../../src/extract/content';
import { parseImageList } from '../../src/extract/images';
import { parseTesseractTsv } from '../../src/extract/ocr';
import { parseBboxLayout } from '../../src/extract/pdf-text';

describe('parseBboxLayout (pdftotext -bbox-layout)', () => {
  const page = (blocks: string) =>
    `<doc><page width="600.000000" height="800.000000"><flow>${blocks}</flow></page></doc>`;
  const block = (box: string, lines: string[][]) =>
    `<block ${box}>${lines
      .map(
        (words) =>
          `<line xMin="0" yMin="0" xMax="1" yMax="1">${words.map((w) => `<word xMin="0" yMin="0" xMax="1" yMax="1">${w}</word>`).join('')}</line>`,
      )
      .join('')}</block>`;

  it('makes one text item per block, lines joined by spaces, entities decoded, boxes on the 0–1000 grid', () => {
    const xhtml = page(
      block('xMin="60.000000" yMin="80.000000" xMax="300.000000" yMax="100.000000"', [
        ['Fish', '&amp;', 'Chips'],
        ['&lt;2&gt;', '&#233;t&#xE9;'],
      ]),
    );
    expect(parseBboxLayout(xhtml, 3)).toEqual([
      { type: 'text', text: 'Fish & Chips <2> été', page_idx: 3, bbox: [100, 100, 500, 125] },
    ]);
  });

  it('skips empty blocks and answers nothing for output without a page', () => {
    expect(parseBboxLayout(page(block('xMin="0" yMin="0" xMax="1" yMax="1"', [[' ']])), 0)).toEqual(
      [],
    );
    expect(parseBboxLayout('<doc></doc>', 0)).toEqual([]);
  });
});

describe('parseTesseractTsv', () => {
  const header =
    'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext';
  const row = (cells: Array<number | string>) => cells.join('\t');

  it('groups words by block and paragraph, in order, with the union of their boxes', () => {
    const tsv = [
      header,
      row([1, 1, 0, 0, 0, 0, 0, 0, 1000, 2000, -1, '']),
      row([5, 1, 1, 1, 1, 1, 100, 200, 50, 20, 96, 'Hello']),
      row([5, 1, 1, 1, 1, 2, 160, 198, 60, 24, 95, 'world']),
      row([5, 1, 1, 1, 2, 1, 100, 230, 40, 20, 93, 'again']),
      row([5, 1, 2, 1, 1, 1, 100, 1000, 80, 20, 90, 'Second']),
      row([5, 1, 2, 1, 1, 2, 190, 1000, 10, 20, 10, '  ']),
    ].join('\n');
    expect(parseTesseractTsv(tsv, 2)).toEqual([
      { type: 'text', text: 'Hello world again', page_idx: 2, bbox: [100, 99, 220, 125] },
      { type: 'text', text: 'Second', page_idx: 2, bbox: [100, 500, 180, 510] },
    ]);
  });

  it('answers nothing without a page row', () => {
    expect(
      parseTesseractTsv(`${header}\n${row([5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 90, 'x'])}`, 0),
    ).toEqual([]);
  });
});

describe('content helpers', () => {
  it('clamps boxes to the grid', () => {
    expect(normaliseBox([-5, 0, 700, 400], 600, 800)).toEqual([0, 0, 1000, 500]);
  });

  it('writes Markdown: paragraphs apart, images with their description', () => {
    expect(
      toMarkdown([
        { type: 'text', text: 'One', page_idx: 0, bbox: [0, 0, 1, 1] },
        {
          type: 'image',
          img_path: 'images/image-1.png',
          image_caption: ['A chart.'],
          image_footnote: [],
          page_idx: 0,
          bbox: [0, 0, 1000, 1000],
        },
        { type: 'text', text: 'Two', page_idx: 1, bbox: [0, 0, 1, 1] },
      ]),
    ).toBe('One\n\n![](images/image-1.png)\n\nA chart.\n\nTwo');
  });
});

describe('parseImageList (pdfimages -list)', () => {
  it('reads page, type and size of each row after the two header lines', () => {
    const list = [
      'page   num  type   width height color comp bpc  enc interp  object ID x-ppi y-ppi size ratio',
      '--------------------------------------------------------------------------------------------',
      '   1     0 image     200   283  rgb     3   8  image  no         8  0    72    72  2.1K 1.2%',
      '   2     1 smask      16    16  gray    1   8  image  no         9  0    72    72   12B  5%',
    ].join('\n');
    expect(parseImageList(list)).toEqual([
      { page: 1, type: 'image', width: 200, height: 283 },
      { page: 2, type: 'smask', width: 16, height: 16 },
    ]);
  });
});
