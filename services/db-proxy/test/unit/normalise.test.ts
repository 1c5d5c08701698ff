import { normaliseRows, normaliseValue } from '../../src/normalise';

describe('normaliseValue', () => {
  it('applies the seed rules: BigInt → string, Date → ISO 8601, binary → Base64', () => {
    expect(normaliseValue(12345678901234567890n)).toBe('12345678901234567890');
    expect(normaliseValue(new Date('2024-01-02T03:04:05.678Z'))).toBe('2024-01-02T03:04:05.678Z');
    expect(normaliseValue(Buffer.from([1, 2, 255]))).toBe('AQL/');
    expect(normaliseValue(new Uint8Array([1, 2, 255]).subarray(1))).toBe('Av8=');
  });

  it('leaves everything else unchanged', () => {
    for (const value of ['text', 42, 1.5, true, false, null, undefined]) {
      expect(normaliseValue(value)).toBe(value);
    }
  });

  it('turns what JSON cannot carry into text or null', () => {
    expect(normaliseValue(Number.NaN)).toBe('NaN');
    expect(normaliseValue(Number.POSITIVE_INFINITY)).toBe('Infinity');
    expect(normaliseValue(Number.NEGATIVE_INFINITY)).toBe('-Infinity');
    expect(normaliseValue(new Date(Number.NaN))).toBeNull();
  });

  it('works at any depth: arrays, JSON documents, arrays in documents', () => {
    const value = {
      when: [new Date('2024-01-02T00:00:00Z'), null],
      nested: { big: 1n, bytes: Buffer.from('hi'), list: [{ deeper: [2n] }] },
    };
    expect(normaliseValue(value)).toEqual({
      when: ['2024-01-02T00:00:00.000Z', null],
      nested: { big: '1', bytes: 'aGk=', list: [{ deeper: ['2'] }] },
    });
  });

  it('keeps a `__proto__` key of a JSON document as data', () => {
    const document = JSON.parse('{"__proto__": {"polluted": 1}}') as object;
    const result = normaliseValue(document) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.keys(result)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps objects that are not plain data (they serialise themselves)', () => {
    class Interval {
      hours = 2;
    }
    const interval = new Interval();
    expect(normaliseValue(interval)).toBe(interval);
  });
});

describe('normaliseRows', () => {
  it('normalises every column of every row', () => {
    const rows = [
      { id: 1n, at: new Date(0) },
      { id: 2n, at: null },
    ];
    expect(normaliseRows(rows)).toEqual([
      { id: '1', at: '1970-01-01T00:00:00.000Z' },
      { id: '2', at: null },
    ]);
  });
});
