import { validate } from '../../src/api/license-lookup';

const now = new Date('2026-06-01T00:00:00Z');
const active = { is_active: true, max_user: 5 };
const valid = { status: true, expired_date: '2027-01-01T00:00:00Z' };
const expired = { status: true, expired_date: '2026-05-31T23:59:59Z' };
const suspended = { status: false, expired_date: '2027-01-01T00:00:00Z' };

describe('license validation codes', () => {
  it('is VALID with one active, unexpired license (or one without an expiry date)', () => {
    expect(validate(active, [valid], now)).toMatchObject({ valid: true, code: 'VALID' });
    expect(validate(active, [{ status: true, expired_date: null }], now).code).toBe('VALID');
    expect(validate(active, [expired, suspended, valid], now).code).toBe('VALID');
  });

  it('checks the client first: an inactive client is CLIENT_INACTIVE whatever its licenses', () => {
    expect(validate({ ...active, is_active: false }, [valid], now)).toMatchObject({
      valid: false,
      code: 'CLIENT_INACTIVE',
    });
  });

  it('is NOT_FOUND without licenses, SUSPENDED when all are off, EXPIRED when the active ones ended', () => {
    expect(validate(active, [], now).code).toBe('NOT_FOUND');
    expect(validate(active, [suspended], now).code).toBe('SUSPENDED');
    expect(validate(active, [expired, suspended], now).code).toBe('EXPIRED');
  });

  it('expires at the instant of expired_date', () => {
    expect(validate(active, [{ status: true, expired_date: now.toISOString() }], now).code).toBe(
      'EXPIRED',
    );
  });

  it('counts seats only when asked, and allows exactly max_user', () => {
    expect(validate(active, [valid], now, 5).code).toBe('VALID');
    expect(validate(active, [valid], now, 6)).toMatchObject({
      valid: false,
      code: 'TOO_MANY_USERS',
    });
    expect(validate({ ...active, max_user: null }, [valid], now, 10_000).code).toBe('VALID');
  });
});
