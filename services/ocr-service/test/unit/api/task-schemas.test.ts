import {
  bulkBody,
  mergeQuery,
  metadataText,
  PdfQuery,
  TaskStatusParams,
} from '../../../src/api/task-schemas';

describe('metadataText', () => {
  it('parses a JSON object; blank text counts as absent', () => {
    expect(metadataText.parse('{"a":{"b":[1]}}')).toEqual({ a: { b: [1] } });
    expect(metadataText.parse('  ')).toBeUndefined();
  });

  it.each(['not json', '[1]', '"x"', '1', 'null', 'true'])('refuses %s', (text) => {
    expect(metadataText.safeParse(text).success).toBe(false);
  });
});

describe('PdfQuery', () => {
  // `processing` left out stays out: its default depends on the install's engines (engineFor).
  it("has the seed's defaults", () => {
    expect(PdfQuery.parse({})).toEqual({
      type_ocr: 'ekstrak_only',
      representasi_count: 3,
    });
  });

  it('takes task ids of 1 to 128 letters, digits, dots, dashes and underscores', () => {
    expect(PdfQuery.safeParse({ task_id: 'A.b_c-9' }).success).toBe(true);
    expect(PdfQuery.safeParse({ task_id: '.hidden' }).success).toBe(true);
    expect(PdfQuery.safeParse({ task_id: 'x'.repeat(128) }).success).toBe(true);
    for (const bad of ['', 'x'.repeat(129), 'a/b', 'a b', 'ä', 'a:b', '.', '..', '...']) {
      expect(PdfQuery.safeParse({ task_id: bad }).success).toBe(false);
    }
    expect(TaskStatusParams.safeParse({ task_id: '../x' }).success).toBe(false);
  });

  it('takes http and https URLs only', () => {
    expect(PdfQuery.safeParse({ url_file: 'http://a.example/x.pdf' }).success).toBe(true);
    for (const bad of ['ftp://a/x.pdf', 'file:///etc/passwd', 'javascript:alert(1)', '/x.pdf']) {
      expect(PdfQuery.safeParse({ url_file: bad }).success).toBe(false);
    }
  });
});

describe('mergeQuery', () => {
  const query = mergeQuery(3);

  it('takes url_file once or repeated, always as a list; pdf_name merged.pdf by default', () => {
    expect(query.parse({})).toMatchObject({ url_file: [], pdf_name: 'merged.pdf' });
    expect(query.parse({ url_file: 'https://a/x.pdf' }).url_file).toEqual(['https://a/x.pdf']);
    expect(query.parse({ url_file: ['https://a/1.pdf', 'https://a/2.pdf'] }).url_file).toHaveLength(
      2,
    );
    expect(
      query.safeParse({ url_file: ['https://a/1', 'https://a/2', 'https://a/3', 'https://a/4'] })
        .success,
    ).toBe(false);
  });

  it('takes a pdf_name ending in .pdf without path separators', () => {
    expect(query.parse({ pdf_name: 'Annual Report.PDF' }).pdf_name).toBe('Annual Report.PDF');
    for (const bad of ['a.txt', '.pdf', 'a/b.pdf', 'a\\b.pdf', `${'x'.repeat(252)}.pdf`]) {
      expect(query.safeParse({ pdf_name: bad }).success).toBe(false);
    }
  });
});

describe('bulkBody', () => {
  const body = bulkBody(2);

  it('takes 1 to the maximum of URLs with the processing options', () => {
    expect(body.parse({ url_files: ['https://a/1.pdf'] })).toEqual({
      url_files: ['https://a/1.pdf'],
      type_ocr: 'ekstrak_only',
      representasi_count: 3,
    });
    expect(body.safeParse({ url_files: [] }).success).toBe(false);
    expect(
      body.safeParse({ url_files: ['https://a/1', 'https://a/2', 'https://a/3'] }).success,
    ).toBe(false);
  });

  it('does not coerce JSON values: a number must be a number', () => {
    for (const count of [null, '3', true]) {
      expect(
        body.safeParse({ url_files: ['https://a/1.pdf'], representasi_count: count }).success,
      ).toBe(false);
    }
  });
});
