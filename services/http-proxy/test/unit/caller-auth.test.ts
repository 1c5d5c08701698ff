import { createTokenCheck } from '../../src/caller-auth';

describe('createTokenCheck', () => {
  it('accepts exactly the configured bearer token', () => {
    const check = createTokenCheck('s3rvice-token');
    expect(check('Bearer s3rvice-token')).toBe(true);
    expect(check('bearer   s3rvice-token')).toBe(true);
    expect(check(undefined)).toBe(false);
    expect(check('')).toBe(false);
    expect(check('Bearer s3rvice-toke')).toBe(false);
    expect(check('Bearer s3rvice-token-longer')).toBe(false);
    expect(check('Basic s3rvice-token')).toBe(false);
    expect(check('s3rvice-token')).toBe(false);
  });
});
