import { docxParagraphs } from '../../src/convert/docx-paragraphs';
import { wrap } from '../../src/convert/text-pdf';

describe('docxParagraphs', () => {
  it('joins the runs of each paragraph, keeps tabs and breaks, decodes entities, skips empty ones', () => {
    const xml =
      '<w:document><w:body>' +
      '<w:p><w:r><w:t>Fish </w:t></w:r><w:r><w:t xml:space="preserve">&amp; Chips</w:t></w:r></w:p>' +
      '<w:p><w:pPr/></w:p>' +
      '<w:p><w:r><w:t>a</w:t><w:tab/><w:t>b</w:t><w:br/><w:t>&lt;c&gt; &#233;</w:t></w:r></w:p>' +
      '</w:body></w:document>';
    expect(docxParagraphs(xml)).toEqual(['Fish & Chips', 'a\tb\n<c> é']);
  });
});

describe('wrap', () => {
  const width = (text: string) => text.length;
  it('breaks between words at the width, keeping explicit line breaks', () => {
    expect(wrap('one two three four', width, 9)).toEqual(['one two', 'three', 'four']);
    expect(wrap('short\nnext line', width, 20)).toEqual(['short', 'next line']);
  });
  it('keeps a word longer than the width on a line of its own', () => {
    expect(wrap('a extraordinarily b', width, 5)).toEqual(['a', 'extraordinarily', 'b']);
  });
});
