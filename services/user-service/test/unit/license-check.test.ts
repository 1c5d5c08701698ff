import { createLogger } from '@pelita/kit';
import { createLicenseCheck } from '../../src/license/license-check';
import type { LicenseClient, LicensedClient } from '../../src/license/license-client';

const logger = createLogger({ name: 'license-test', level: 'silent' });
const now = () => new Date('2026-06-01T00:00:00Z');

function check(client: LicensedClient | null) {
  const fake: LicenseClient = { fetchClient: () => Promise.resolve(client) };
  return createLicenseCheck(fake, logger, now);
}
const base: LicensedClient = {
  id: 'c',
  is_active: true,
  max_user: 3,
  licenses: [{ id: 'l', status: true, expired_date: '2026-12-31T00:00:00Z' }],
};

describe('license rules', () => {
  it('passes an active client with a current license', async () => {
    await expect(check(base).assertLicensed({ addingUser: false })).resolves.toBeUndefined();
  });

  it('treats a license without expiry date as current', async () => {
    const open = { ...base, licenses: [{ id: 'l', status: true, expired_date: null }] };
    await expect(check(open).assertLicensed({ addingUser: false })).resolves.toBeUndefined();
  });

  it.each([
    ['an unknown client', null, 'license_not_found'],
    ['an inactive client', { ...base, is_active: false }, 'license_inactive'],
    [
      'an expired license',
      { ...base, licenses: [{ id: 'l', status: true, expired_date: '2026-05-31T23:59:59Z' }] },
      'license_expired',
    ],
    [
      'a switched-off license',
      { ...base, licenses: [{ id: 'l', status: false, expired_date: null }] },
      'license_expired',
    ],
  ])('refuses %s', async (_case, client, code) => {
    await expect(check(client).assertLicensed({ addingUser: false })).rejects.toMatchObject({
      status: 403,
      code,
    });
  });

  it('counts users only when one is added', async () => {
    const full = () => Promise.resolve(3);
    await expect(
      check(base).assertLicensed({ addingUser: false, activeUsers: full }),
    ).resolves.toBeUndefined();
    await expect(
      check(base).assertLicensed({ addingUser: true, activeUsers: full }),
    ).rejects.toMatchObject({
      code: 'license_user_limit',
    });
    await expect(
      check(base).assertLicensed({ addingUser: true, activeUsers: () => Promise.resolve(2) }),
    ).resolves.toBeUndefined();
  });

  it.each([
    ['SUSPENDED', 'license_expired'],
    ['EXPIRED', 'license_expired'],
    ['CLIENT_INACTIVE', 'license_inactive'],
    ['NOT_FOUND', 'license_not_found'],
    ['TOO_MANY_USERS', 'license_user_limit'],
    ['REVOKED', 'license_invalid'],
  ])(
    "refuses when the license service's validation code is %s, whatever the fields say",
    async (validationCode, code) => {
      const answer = { ...base, validation: { valid: false, code: validationCode, detail: 'no' } };
      await expect(check(answer).assertLicensed({ addingUser: false })).rejects.toMatchObject({
        status: 403,
        code,
      });
    },
  );

  it('passes only a VALID code marked valid; an answer without validation (the seed) by its fields', async () => {
    const valid = { ...base, validation: { valid: true, code: 'VALID', detail: 'ok' } };
    await expect(check(valid).assertLicensed({ addingUser: false })).resolves.toBeUndefined();
    const contradictory = { ...base, validation: { valid: true, code: 'EXPIRED' } };
    await expect(check(contradictory).assertLicensed({ addingUser: false })).rejects.toMatchObject({
      code: 'license_expired',
    });
    const fieldsFail = { ...valid, is_active: false };
    await expect(check(fieldsFail).assertLicensed({ addingUser: false })).rejects.toMatchObject({
      code: 'license_inactive',
    });
  });

  it('checks nothing when no license service is configured', async () => {
    await expect(
      createLicenseCheck(undefined, logger).assertLicensed({ addingUser: true }),
    ).resolves.toBeUndefined();
  });
});
