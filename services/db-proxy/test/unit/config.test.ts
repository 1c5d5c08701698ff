import { loadConfig } from '@pelita/kit';
import { settingsSchema } from '../../src/config';

describe('database host settings', () => {
  it('lists no host and allows none by default', () => {
    const settings = loadConfig(settingsSchema, {});
    expect(settings.ALLOWED_DB_HOSTS).toBeNull();
    expect(settings.ALLOW_ANY_DB_HOST).toBe(false);
  });

  it('refuses ALLOW_ANY_DB_HOST together with a list', () => {
    expect(() =>
      loadConfig(settingsSchema, { ALLOWED_DB_HOSTS: '127.0.0.1', ALLOW_ANY_DB_HOST: 'true' }),
    ).toThrow(/ALLOW_ANY_DB_HOST.*contradicts ALLOWED_DB_HOSTS/);
  });
});
