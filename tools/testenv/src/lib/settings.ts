// Where the tool keeps its state and caches, resolved from the environment (pure, so it is unit-tested).
import os from 'node:os';
import path from 'node:path';

export interface Settings {
  /** Temporary state: one sub-directory per server (data, logs, pid file) and the env file. */
  dir: string;
  /** Downloads and builds that survive `down` and reboots; kept outside the repository. */
  cacheDir: string;
  /** Built Go binaries (GOBIN). */
  binDir: string;
  /** Unprivileged account the servers run as when the tool runs as root. */
  userName: string;
}

const DEFAULT_DIR = '/tmp/pelita-testenv';
const DEFAULT_USER = 'pelita';

type Env = Record<string, string | undefined>;

/** An empty variable counts as unset, as in most shells' `${VAR:-default}`. */
function setting(env: Env, key: string): string | undefined {
  const value = env[key];
  return value === undefined || value === '' ? undefined : value;
}

export function resolveSettings(env: Env, uid: number, home: string): Settings {
  const dir = path.resolve(setting(env, 'PELITA_TESTENV_DIR') ?? DEFAULT_DIR);
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  const xdg = setting(env, 'XDG_CACHE_HOME');
  const userCache = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(home, '.cache');
  const defaultCache = uid === 0 ? '/var/cache/pelita' : path.join(userCache, 'pelita');
  const cacheDir = path.resolve(setting(env, 'PELITA_CACHE_DIR') ?? defaultCache);
  return {
    dir,
    cacheDir,
    binDir: path.join(cacheDir, 'bin'),
    userName: setting(env, 'PELITA_TESTENV_USER') ?? DEFAULT_USER,
  };
}

export function currentSettings(): Settings {
  return resolveSettings(process.env, process.getuid?.() ?? -1, os.homedir());
}

export function envFilePath(settings: Pick<Settings, 'dir'>): string {
  return path.join(settings.dir, 'testenv.env');
}
