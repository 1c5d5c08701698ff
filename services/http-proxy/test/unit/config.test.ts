import { ConfigError, loadConfig } from '@pelita/kit';
import { settingsSchema } from '../../src/config';

describe('settings', () => {
  it('has safe defaults: only public targets, 30 s, 10 MiB, 5 redirects, no caller token', () => {
    const settings = loadConfig(settingsSchema, {});
    expect(settings.PORT).toBe(3000);
    expect(settings.ALLOWED_TARGETS.ranges).toEqual([]);
    expect(settings.ALLOWED_TARGETS.names.size).toBe(0);
    expect(settings.OUTBOUND_TIMEOUT_MS).toBe(30_000);
    expect(settings.MAX_RESPONSE_BYTES).toBe(10 * 1024 * 1024);
    expect(settings.MAX_REDIRECTS).toBe(5);
    expect(settings.PROXY_SERVICE_TOKEN).toBeUndefined();
  });

  it('reads the allowlist and treats an empty token as unset', () => {
    const settings = loadConfig(settingsSchema, {
      ALLOWED_TARGETS: '127.0.0.0/8, ::1,api.internal',
      PROXY_SERVICE_TOKEN: '',
    });
    expect(settings.ALLOWED_TARGETS.ranges).toHaveLength(2);
    expect([...settings.ALLOWED_TARGETS.names]).toEqual(['api.internal']);
    expect(settings.PROXY_SERVICE_TOKEN).toBeUndefined();
  });

  it('refuses a bad allowlist entry, naming the setting', () => {
    expect(() => loadConfig(settingsSchema, { ALLOWED_TARGETS: '10.0.0.0/99' })).toThrow(
      ConfigError,
    );
    expect(() => loadConfig(settingsSchema, { ALLOWED_TARGETS: '10.0.0.0/99' })).toThrow(
      /ALLOWED_TARGETS/,
    );
  });
});
