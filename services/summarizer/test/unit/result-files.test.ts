import { retryWaitMs } from '../../src/llm-client';
import { resultFileName } from '../../src/output-files';
import { decodeText } from '../../src/upload';

describe('resultFileName', () => {
  it('names results <kind>_YYYYMMDD_HHMMSS.json in UTC', () => {
    const at = new Date('2025-01-31T23:59:07.123Z');
    expect(resultFileName('summary', at)).toBe('summary_20250131_235907.json');
    expect(resultFileName('entities', new Date('2025-03-04T05:06:07Z'))).toBe(
      'entities_20250304_050607.json',
    );
  });
});

describe('decodeText', () => {
  const utf16le = (text: string) =>
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
  it('reads UTF-8 with or without BOM and UTF-16 with BOM', () => {
    expect(decodeText(Buffer.from('héllo'))).toBe('héllo');
    expect(decodeText(Buffer.from('\ufeffhéllo'))).toBe('héllo');
    expect(decodeText(utf16le('héllo'))).toBe('héllo');
    const be = Buffer.from(utf16le('hi').subarray(2)).swap16();
    expect(decodeText(Buffer.concat([Buffer.from([0xfe, 0xff]), be]))).toBe('hi');
  });
  it('rejects bytes that are not UTF-8', () => {
    expect(decodeText(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00]))).toBeUndefined();
  });
});

describe('retryWaitMs', () => {
  it('reads retry-after-ms first, then retry-after in seconds or as a date', () => {
    expect(retryWaitMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(retryWaitMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryWaitMs(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }), now)).toBe(
      30_000,
    );
    expect(retryWaitMs(new Headers({}))).toBeUndefined();
  });
});
