import { loadConfig } from '@pelita/kit';
import { licenseSettings, settingsSchema } from '../../src/config';

const required = {
  DATABASE_URL: 'postgres://u:p@h/db',
  REDIS_URL: 'redis://h:6379',
  JWT_PRIVATE_KEY: 'pem',
};

describe('settings', () => {
  it('refuses to start without a signing key unless development allows an ephemeral one', () => {
    const { JWT_PRIVATE_KEY: _key, ...withoutKey } = required;
    expect(() => loadConfig(settingsSchema, withoutKey)).toThrow(/JWT_PRIVATE_KEY: required/);
    expect(() =>
      loadConfig(settingsSchema, { ...withoutKey, ALLOW_EPHEMERAL_SIGNING_KEY: 'false' }),
    ).toThrow(/JWT_PRIVATE_KEY: required/);
    expect(
      loadConfig(settingsSchema, { ...withoutKey, ALLOW_EPHEMERAL_SIGNING_KEY: 'true' })
        .JWT_PRIVATE_KEY,
    ).toBeUndefined();
  });

  it('has defaults for everything but the two stores and the key', () => {
    const settings = loadConfig(settingsSchema, required);
    expect(settings).toMatchObject({
      APP_TIMEZONE: 'UTC',
      ACCESS_TOKEN_TTL_SECONDS: 900,
      REFRESH_TOKEN_TTL_SECONDS: 604800,
      URL_OPA: 'http://127.0.0.1:8181',
    });
    expect(settings.POLICY_SYNC_URL).toBeUndefined();
    expect(settings.OPEN_API_TOKEN).toBeUndefined();
  });

  it('turns escaped newlines of a PEM setting into real ones', () => {
    const settings = loadConfig(settingsSchema, { ...required, JWT_PRIVATE_KEY: 'a\\nb' });
    expect(settings.JWT_PRIVATE_KEY).toBe('a\nb');
  });

  it('refuses an unknown time zone without echoing secrets', () => {
    expect(() =>
      loadConfig(settingsSchema, {
        ...required,
        APP_TIMEZONE: 'Mars/Olympus',
        SMTP_PASSWORD: 'pw-9',
      }),
    ).toThrow(/APP_TIMEZONE: not an IANA time zone/);
  });

  it('treats an empty POLICY_SYNC_URL as unset and strips trailing slashes', () => {
    expect(
      loadConfig(settingsSchema, { ...required, POLICY_SYNC_URL: '' }).POLICY_SYNC_URL,
    ).toBeUndefined();
    expect(
      loadConfig(settingsSchema, { ...required, POLICY_SYNC_URL: 'http://sync:3666/' })
        .POLICY_SYNC_URL,
    ).toBe('http://sync:3666');
  });

  it('reads the boolean settings as booleans, with their defaults', () => {
    expect(loadConfig(settingsSchema, required)).toMatchObject({
      SMTP_SECURE: false,
      S3_FORCE_PATH_STYLE: true,
    });
    expect(
      loadConfig(settingsSchema, {
        ...required,
        SMTP_SECURE: 'true',
        S3_FORCE_PATH_STYLE: 'false',
      }),
    ).toMatchObject({ SMTP_SECURE: true, S3_FORCE_PATH_STYLE: false });
    expect(() => loadConfig(settingsSchema, { ...required, SMTP_SECURE: 'maybe' })).toThrow(
      /SMTP_SECURE/,
    );
  });

  it('refuses a license URL without its client id and account, naming each missing one', () => {
    const call = () =>
      loadConfig(settingsSchema, {
        ...required,
        LICENSE_API_URL: 'https://license.example',
        LICENSE_API_USERNAME: 'dashboard',
      });
    expect(call).toThrow(/LICENSE_CLIENT_ID: required when LICENSE_API_URL is set/);
    expect(call).toThrow(/LICENSE_API_PASSWORD: required when LICENSE_API_URL is set/);
    expect(call).not.toThrow(/LICENSE_API_USERNAME/);
  });

  it('turns off license validation when LICENSE_API_URL is unset', () => {
    expect(licenseSettings(loadConfig(settingsSchema, required))).toBeUndefined();
    const full = loadConfig(settingsSchema, {
      ...required,
      LICENSE_API_URL: 'https://license.example/',
      LICENSE_CLIENT_ID: 'client-7',
      LICENSE_API_USERNAME: 'dashboard',
      LICENSE_API_PASSWORD: 'dashboard-pw',
    });
    expect(licenseSettings(full)).toEqual({
      baseUrl: 'https://license.example',
      clientId: 'client-7',
      username: 'dashboard',
      password: 'dashboard-pw',
      timeoutMs: 5000,
    });
  });
});
