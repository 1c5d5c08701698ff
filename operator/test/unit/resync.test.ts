import { resyncDelay } from '../../src/controller/controller';

describe('the periodic resync', () => {
  it('comes due between the period and 10 % after it', () => {
    expect(resyncDelay(600_000, () => 0)).toBe(600_000);
    expect(resyncDelay(600_000, () => 0.5)).toBe(630_000);
    expect(resyncDelay(600_000, () => 0.999_999)).toBe(660_000);
  });

  it('spreads installs reconciled together over a minute of a 10-minute period', () => {
    const due = Array.from({ length: 1000 }, () => resyncDelay(600_000));
    expect(Math.min(...due)).toBeGreaterThanOrEqual(600_000);
    expect(Math.max(...due)).toBeLessThanOrEqual(660_000);
    // No second of the minute holds more than a few dozen: 1,000 over 60 s is about 17 each.
    const perSecond = new Map<number, number>();
    for (const ms of due)
      perSecond.set(Math.floor(ms / 1000), (perSecond.get(Math.floor(ms / 1000)) ?? 0) + 1);
    expect(perSecond.size).toBeGreaterThan(50);
    expect(Math.max(...perSecond.values())).toBeLessThan(50);
  });
});
