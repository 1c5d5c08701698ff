import { createAddressThrottle } from '../../src/auth/address-throttle';

describe('address throttle', () => {
  let clock = 0;
  const throttle = (maxEntries?: number) =>
    createAddressThrottle({
      maxFailures: 3,
      windowMs: 60_000,
      now: () => clock,
      ...(maxEntries === undefined ? {} : { maxEntries }),
    });
  beforeEach(() => {
    clock = 1_000_000;
  });

  it('holds an address back after its failures, until its window ends', () => {
    const t = throttle();
    for (let i = 0; i < 3; i++) {
      expect(t.retryAfter('api', '10.0.0.1')).toBeNull();
      t.fail('api', '10.0.0.1');
    }
    expect(t.retryAfter('api', '10.0.0.1')).toBe(60);
    clock += 45_500;
    expect(t.retryAfter('api', '10.0.0.1')).toBe(15);
    clock += 14_500;
    expect(t.retryAfter('api', '10.0.0.1')).toBeNull();
  });

  it('counts each address and each surface apart', () => {
    const t = throttle();
    for (let i = 0; i < 3; i++) t.fail('api', '10.0.0.1');
    expect(t.retryAfter('api', '10.0.0.2')).toBeNull();
    expect(t.retryAfter('dashboard', '10.0.0.1')).toBeNull();
  });

  it('stays bounded, forgetting the oldest addresses first', () => {
    const t = throttle(10);
    for (let i = 0; i < 3; i++) t.fail('api', 'old');
    for (let n = 0; n < 10; n++) t.fail('api', `new-${n}`);
    expect(t.retryAfter('api', 'old')).toBeNull();
  });
});
