/** Self-registration with fakes of the repositories, the license check and the role-data transaction. */
import { HttpError } from '@pelita/kit';
import { testPasswords } from '@pelita/kit/testing';
import { createRegistration } from '../../../src/auth/registration';
import type { NewUser } from '../../../src/users/user-repository';
import { fakeRoleData } from '../role-data-fake';

const passwords = testPasswords();

function setup(
  options: { role?: boolean; licenseRefuses?: boolean; taken?: boolean; enabled?: boolean } = {},
) {
  const inserted: NewUser[] = [];
  const roleData = fakeRoleData();
  const triggered = roleData.committed;
  const mailed: Array<{ id: string; email: string }> = [];
  const registration = createRegistration({
    enabled: options.enabled ?? true,
    users: {
      removeStaleUnverified: () => Promise.resolve(0),
      insert: (user) => {
        // What pg throws for a unique index: SQLSTATE 23505.
        if (options.taken)
          return Promise.reject(Object.assign(new Error('duplicate'), { code: '23505' }));
        inserted.push(user);
        return Promise.resolve(`u-${inserted.length}`);
      },
    },
    roles: {
      findByName: (name) =>
        Promise.resolve(
          options.role === false
            ? undefined
            : {
                id: 7,
                name,
                description: '',
                level: 100,
                createdAt: new Date(0),
                updatedAt: new Date(0),
              },
        ),
    },
    license: {
      assertLicensed: () =>
        options.licenseRefuses
          ? Promise.reject(new HttpError(403, 'license_user_limit', 'full'))
          : Promise.resolve(),
    },
    roleData,
    verification: { sendFirstLink: (user) => void mailed.push(user) },
    registrationRole: 'member',
    verificationTtlSeconds: 3600,
    passwords,
  });
  const account = {
    email: 'new@pelita.test',
    username: 'newbie',
    fullName: 'New Bie',
    password: 'new-pw-1234',
  };
  return { registration, inserted, triggered, mailed, account };
}

describe('registration', () => {
  it('creates an unverified account with the registration role and a hashed password, and mails its link', async () => {
    const { registration, inserted, triggered, mailed, account } = setup();
    await expect(registration.register(account)).resolves.toBe('u-1');
    expect(inserted).toEqual([
      expect.objectContaining({
        email: 'new@pelita.test',
        username: 'newbie',
        fullName: 'New Bie',
        roleId: 7,
        emailVerified: false,
      }),
    ]);
    expect(inserted[0]!.passwordHash).not.toContain('new-pw-1234');
    expect(await passwords.verify('new-pw-1234', inserted[0]!.passwordHash)).toBe(true);
    // Not in OPA's data until verified.
    expect(triggered).toEqual([]);
    expect(mailed).toEqual([{ id: 'u-1', email: 'new@pelita.test' }]);
  });

  it('refuses (403) while self-registration is off, creating nothing', async () => {
    const { registration, inserted, account } = setup({ enabled: false });
    await expect(registration.register(account)).rejects.toMatchObject({
      status: 403,
      code: 'registration_disabled',
    });
    expect(inserted).toEqual([]);
  });

  it('is unavailable (503) while the registration role does not exist', async () => {
    const { registration, inserted, account } = setup({ role: false });
    await expect(registration.register(account)).rejects.toMatchObject({
      status: 503,
      code: 'registration_unavailable',
    });
    expect(inserted).toEqual([]);
  });

  it('answers 409 for a taken e-mail or user name, and syncs nothing', async () => {
    const { registration, triggered, account } = setup({ taken: true });
    await expect(registration.register(account)).rejects.toMatchObject({ status: 409 });
    expect(triggered).toEqual([]);
  });

  it('creates nothing when the license refuses', async () => {
    const { registration, inserted, account } = setup({ licenseRefuses: true });
    await expect(registration.register(account)).rejects.toMatchObject({
      code: 'license_user_limit',
    });
    expect(inserted).toEqual([]);
  });
});
