import { docxParagraphs, scanParagraphs, TAGS_PER_STEP } from '../../src/convert/docx-paragraphs';

const paragraph = (text: string) => `<w:p><w:r><w:t>${text}</w:t></w:r></w:p>`;

describe('docxParagraphs on hostile documents', () => {
  // 400,000 paragraphs that never close (2 MB, a 3 kB .docx): the lazy regex this replaces
  // scanned to the end of the document from each of them (20 kB 31 ms, 80 kB 0.8 s, 160 kB
  // 3.4 s, this one minutes); one pass over the tags reads it in well under a second.
  // (jest cannot interrupt synchronous code: the limit is asserted, 10 s for about 0.1 s of work.)
  it('reads megabytes of unclosed paragraphs in one pass', () => {
    const xml = paragraph('Words kept') + '<w:p>'.repeat(400_000);
    const started = Date.now();
    expect(docxParagraphs(xml)).toEqual(['Words kept']);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('reads one paragraph of megabytes of unclosed text runs in one pass', () => {
    const xml = '<w:p><w:t>a' + '<w:t>b'.repeat(400_000) + '</w:p>';
    const started = Date.now();
    expect(docxParagraphs(xml)[0]).toHaveLength(400_001);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('pauses every TAGS_PER_STEP tags, so that its caller keeps a time limit', () => {
    const scan = scanParagraphs('<w:p>'.repeat(TAGS_PER_STEP * 3 + 1), Infinity);
    let pauses = 0;
    while (!scan.next().done) pauses++;
    expect(pauses).toBe(3);
  });

  it('keeps at most maxChars characters and says that it cut', () => {
    const xml = paragraph('first') + paragraph('second one') + paragraph('never read');
    const scan = scanParagraphs(xml, 8);
    let step = scan.next();
    while (!step.done) step = scan.next();
    expect(step.value).toEqual({ paragraphs: ['first', 'sec'], truncated: true });
    expect(docxParagraphs(xml, 100)).toEqual(['first', 'second one', 'never read']);
  });

  it('cuts a single paragraph longer than maxChars while reading it', () => {
    const xml = '<w:p>' + '<w:r><w:t>word </w:t></w:r>'.repeat(1000) + '</w:p>';
    expect(docxParagraphs(xml, 12)).toEqual(['word word wo']);
  });
});

describe('docxParagraphs on WordprocessingML details', () => {
  it('counts a tab stop in paragraph properties as nothing, a bare <w:tab/> as a tab', () => {
    const xml =
      '<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr>' +
      '<w:r><w:t>a</w:t><w:tab/><w:t>b</w:t></w:r></w:p>';
    expect(docxParagraphs(xml)).toEqual(['a\tb']);
  });

  it('reads a paragraph nested in a text box as part of the paragraph around it', () => {
    const xml =
      '<w:p><w:r><w:t>outer </w:t><w:pict><w:txbxContent>' +
      paragraph('inner') +
      '</w:txbxContent></w:pict></w:r></w:p>' +
      paragraph('next');
    expect(docxParagraphs(xml)).toEqual(['outer inner', 'next']);
  });

  it('decodes hexadecimal references and answers a reference outside Unicode with ?', () => {
    expect(docxParagraphs(paragraph('&#x41;&#65;&#9999999;&amp;lt;'))).toEqual(['AA?&lt;']);
  });

  it('ignores text outside paragraphs and self-closing elements', () => {
    const xml = '<w:t>loose</w:t><w:p/><w:p><w:r><w:t/><w:t>kept</w:t></w:r></w:p>';
    expect(docxParagraphs(xml)).toEqual(['kept']);
  });
});
