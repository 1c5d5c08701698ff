import { envFilePath, resolveSettings } from '../../src/lib/settings';

describe('resolveSettings', () => {
  it('defaults: /tmp state, /var/cache for root, user pelita', () => {
    expect(resolveSettings({}, 0, '/root')).toEqual({
      dir: '/tmp/pelita-testenv',
      cacheDir: '/var/cache/pelita',
      binDir: '/var/cache/pelita/bin',
      userName: 'pelita',
    });
  });

  it('caches under XDG_CACHE_HOME, else ~/.cache, for other users', () => {
    expect(resolveSettings({}, 1000, '/home/ann').cacheDir).toBe('/home/ann/.cache/pelita');
    const xdg = resolveSettings({ XDG_CACHE_HOME: '/xdg' }, 1000, '/home/ann');
    expect(xdg.cacheDir).toBe('/xdg/pelita');
    expect(xdg.binDir).toBe('/xdg/pelita/bin');
  });

  it('ignores a relative XDG_CACHE_HOME, as the XDG spec requires', () => {
    const settings = resolveSettings({ XDG_CACHE_HOME: 'rel' }, 1000, '/home/ann');
    expect(settings.cacheDir).toBe('/home/ann/.cache/pelita');
  });

  it('takes explicit settings, treating empty ones as unset', () => {
    const env = {
      PELITA_TESTENV_DIR: '/srv/env/',
      PELITA_CACHE_DIR: '/srv/cache',
      PELITA_TESTENV_USER: 'tester',
    };
    expect(resolveSettings(env, 0, '/root')).toEqual({
      dir: '/srv/env',
      cacheDir: '/srv/cache',
      binDir: '/srv/cache/bin',
      userName: 'tester',
    });
    const empty = { PELITA_TESTENV_DIR: '', PELITA_CACHE_DIR: '', PELITA_TESTENV_USER: '' };
    expect(resolveSettings(empty, 0, '/root')).toEqual(resolveSettings({}, 0, '/root'));
  });

  it('puts the env file in the state dir', () => {
    expect(envFilePath({ dir: '/srv/env' })).toBe('/srv/env/testenv.env');
  });
});
