import { createCallerCheck } from '../../src/caller-auth';

describe('caller check of the sync endpoints', () => {
  it('lets every caller through without SYNC_SERVICE_TOKEN', () => {
    const check = createCallerCheck(undefined);
    expect(check(undefined)).toBe(true);
    expect(check('Bearer anything')).toBe(true);
  });

  it('wants exactly `Bearer <token>` with a token', () => {
    const check = createCallerCheck('s3cret');
    expect(check('Bearer s3cret')).toBe(true);
    expect(check('bearer s3cret ')).toBe(true);
    expect(check(undefined)).toBe(false);
    expect(check('Bearer s3cre')).toBe(false);
    expect(check('Bearer s3cret2')).toBe(false);
    expect(check('Basic s3cret')).toBe(false);
    expect(check('s3cret')).toBe(false);
  });
});
