import { ConfigError, loadConfig } from '@pelita/kit';
import { settingsSchema } from '../../src/config';

const required = { URL_USER: 'http://user-service:3000' };

describe('settings', () => {
  it("has the seed's defaults: port 3666, /share/data.json, the OPA sidecar", () => {
    const settings = loadConfig(settingsSchema, required);
    expect(settings.PORT).toBe(3666);
    expect(settings.URL_USER).toBe('http://user-service:3000');
    expect(settings.URL_OPA).toBe('http://127.0.0.1:8181');
    expect(settings.POLICY_DATA_FILE).toBe('/share/data.json');
    expect(settings.REDIS_URL).toBeUndefined();
    expect(settings.SYNC_CHANNEL).toBe('pelita:policy-sync:trigger');
    expect(settings.RESYNC_INTERVAL_MS).toBe(60_000);
    expect(settings.OPA_PROBE_INTERVAL_MS).toBe(5_000);
    expect(settings.SYNC_SERVICE_TOKEN).toBeUndefined();
    expect(settings.USER_SERVICE_TOKEN).toBeUndefined();
  });

  it('reads the port from NODE_PORT, else from PORT', () => {
    expect(loadConfig(settingsSchema, { ...required, NODE_PORT: '4000', PORT: '5000' }).PORT).toBe(
      4000,
    );
    expect(loadConfig(settingsSchema, { ...required, PORT: '5000' }).PORT).toBe(5000);
    expect(loadConfig(settingsSchema, { ...required, NODE_PORT: '', PORT: '' }).PORT).toBe(3666);
  });

  it('drops trailing slashes of the URLs and treats empty secrets as unset', () => {
    const settings = loadConfig(settingsSchema, {
      URL_USER: 'http://user-service:3000/',
      URL_OPA: 'http://localhost:8181//',
      SYNC_SERVICE_TOKEN: '',
      REDIS_URL: '',
    });
    expect(settings.URL_USER).toBe('http://user-service:3000');
    expect(settings.URL_OPA).toBe('http://localhost:8181');
    expect(settings.SYNC_SERVICE_TOKEN).toBeUndefined();
    expect(settings.REDIS_URL).toBeUndefined();
  });

  it('refuses a missing or non-HTTP URL_USER and a bad NODE_PORT, naming the setting', () => {
    expect(() => loadConfig(settingsSchema, {})).toThrow(/URL_USER/);
    expect(() => loadConfig(settingsSchema, { URL_USER: 'ftp://x' })).toThrow(ConfigError);
    expect(() => loadConfig(settingsSchema, { ...required, NODE_PORT: '70000' })).toThrow(
      /NODE_PORT/,
    );
  });
});
