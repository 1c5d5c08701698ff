import { parseJson } from '../../src/json-text';
import { timestampToIso } from '../../src/timestamp-text';

describe('parseJson', () => {
  it('parses like JSON.parse when no integer is too large', () => {
    const text = '{"a": [1, -2.5, 1e300, "12345678901234567890"], "b": null}';
    expect(parseJson(text)).toEqual(JSON.parse(text));
  });

  it('keeps integers beyond 2^53 exact, as strings, at any depth', () => {
    expect(
      parseJson('{"id": 12345678901234567890, "list": [9007199254740993, 9007199254740991]}'),
    ).toEqual({
      id: '12345678901234567890',
      list: ['9007199254740993', 9007199254740991],
    });
    expect(parseJson('-99999999999999999999')).toBe('-99999999999999999999');
  });

  it('leaves numbers inside strings, escaped quotes included, and non-integers alone', () => {
    expect(parseJson('{"s": "x\\" 12345678901234567890", "f": 12345678901234567890.5}')).toEqual({
      s: 'x" 12345678901234567890',
      f: JSON.parse('12345678901234567890.5') as number,
    });
  });
});

describe('timestampToIso', () => {
  it('reads dates and timestamps without offset as UTC', () => {
    expect(timestampToIso('2024-02-29')).toBe('2024-02-29T00:00:00.000Z');
    expect(timestampToIso('2024-01-02 03:04:05')).toBe('2024-01-02T03:04:05.000Z');
    expect(timestampToIso('2024-01-02 03:04:05.123456')).toBe('2024-01-02T03:04:05.123Z');
    expect(timestampToIso('2024-01-02 03:04:05.5')).toBe('2024-01-02T03:04:05.500Z');
  });

  it('gives exactly what Date.toISOString gives', () => {
    for (const text of ['1999-12-31 23:59:59.999', '0001-01-01 00:00:00', '2000-02-29 12:00:00']) {
      expect(timestampToIso(text)).toBe(new Date(`${text.replace(' ', 'T')}Z`).toISOString());
    }
  });

  it('applies offsets (PostgreSQL timestamptz)', () => {
    expect(timestampToIso('2024-01-02 03:04:05+00')).toBe('2024-01-02T03:04:05.000Z');
    expect(timestampToIso('2024-01-02 08:34:05.5+05:30')).toBe('2024-01-02T03:04:05.500Z');
    expect(timestampToIso('2024-01-01 23:00:00-04')).toBe('2024-01-02T03:00:00.000Z');
    expect(timestampToIso('2024-01-02 03:04:05+00:00:30')).toBe('2024-01-02T03:03:35.000Z');
  });

  it('handles years before 100, after 9999, and BC', () => {
    expect(timestampToIso('0044-03-15')).toBe('0044-03-15T00:00:00.000Z');
    expect(timestampToIso('0044-03-15 BC')).toBe('-000043-03-15T00:00:00.000Z');
    expect(timestampToIso('12024-01-01')).toBe('+012024-01-01T00:00:00.000Z');
  });

  it('keeps text that names no real instant', () => {
    for (const text of [
      'infinity',
      '-infinity',
      '0000-00-00',
      '0000-00-00 00:00:00',
      '2024-02-30',
      '2023-02-29',
      '2024-13-01',
    ]) {
      expect(timestampToIso(text)).toBe(text);
    }
  });
});
