import { bearerMatches } from '../../src/auth/service-token';

describe('bearerMatches', () => {
  it('accepts exactly the configured bearer token', () => {
    const presents = bearerMatches('s3rvice-token');
    expect(presents('Bearer s3rvice-token')).toBe(true);
    expect(presents('bearer   s3rvice-token ')).toBe(true);
    expect(presents(undefined)).toBe(false);
    expect(presents('')).toBe(false);
    expect(presents('Bearer s3rvice-toke')).toBe(false);
    expect(presents('Bearer s3rvice-token-longer')).toBe(false);
    expect(presents('Basic s3rvice-token')).toBe(false);
    expect(presents('s3rvice-token')).toBe(false);
  });
});
