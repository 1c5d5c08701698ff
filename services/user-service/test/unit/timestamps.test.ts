import { timestampFormatter } from '../../src/timestamps';

describe('timestamps in APP_TIMEZONE', () => {
  const instant = new Date('2026-03-01T23:30:15.042Z');

  it('keeps UTC as Z', () => {
    expect(timestampFormatter('UTC')(instant)).toBe('2026-03-01T23:30:15.042Z');
  });

  it('shifts to the zone and states its offset', () => {
    expect(timestampFormatter('Asia/Jakarta')(instant)).toBe('2026-03-02T06:30:15.042+07:00');
    expect(timestampFormatter('America/St_Johns')(instant)).toBe('2026-03-01T20:00:15.042-03:30');
  });

  it('denotes the same instant', () => {
    const text = timestampFormatter('Asia/Kolkata')(instant);
    expect(new Date(text).getTime()).toBe(instant.getTime());
  });
});
