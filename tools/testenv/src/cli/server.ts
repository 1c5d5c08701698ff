// The contract every server module implements, and the context the orchestrator hands it.
import fs from 'node:fs';
import path from 'node:path';
import { type Settings } from '../lib/settings';
import { type Account } from './proc';

export interface Context extends Settings {
  /** Who servers run as: the unprivileged account when we are root, else undefined (ourselves). */
  account: Account | undefined;
  /** Installs Debian packages; requests made in the same tick share one apt-get call (dpkg lock). */
  apt(packages: string[]): Promise<void>;
  /** One progress line, prefixed with the scope (usually the server name). */
  log(scope: string, message: string): void;
}

export interface Server {
  readonly name: string;
  /** Longest wait for readiness after a start; slow starters (JVMs) need more. */
  readonly startTimeoutMs: number;
  /**
   * Only `make e2e` uses it (the real node and what runs on it): `up` leaves it out, `up e2e`
   * brings it up too, so `make test` on a fresh machine does not build what no test talks to.
   */
  readonly e2eOnly?: true;
  /** Cheap (file checks only, it runs on every `up`): are the binaries in place at the pinned version? */
  isInstalled(settings: Settings): boolean;
  install(ctx: Context): Promise<void>;
  /** Prepares the data directory on first use and spawns the server; does not wait for readiness. */
  start(ctx: Context): Promise<void>;
  /** One real probe: connect and ask the server something. */
  isReady(settings: Settings): Promise<boolean>;
  /** Connection settings for the tests; pure, so the library can tell which server owns a key. */
  env(settings: Settings): Record<string, string>;
  stop(settings: Settings): Promise<void>;
}

/** A server's own directory under the state dir, with its conventional pid and log files. */
export function serverPaths(settings: Settings, name: string) {
  const dir = path.join(settings.dir, name);
  return { dir, pidFile: path.join(dir, `${name}.pid`), logFile: path.join(dir, `${name}.log`) };
}

/**
 * Creates a directory the server's account owns, so servers that refuse root can write there.
 * Parents created on the way (below the state dir) are handed over too, not left to root.
 */
export function makeOwnedDir(ctx: Context, dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  if (!ctx.account) return;
  for (let d = dir; d.startsWith(ctx.dir + path.sep); d = path.dirname(d)) {
    fs.chownSync(d, ctx.account.uid, ctx.account.gid);
  }
}

/** Writes a file the server's account owns (servers may rewrite their config, e.g. keystores). */
export function writeOwnedFile(ctx: Context, file: string, content: string, mode = 0o644): void {
  fs.writeFileSync(file, content, { mode });
  if (ctx.account) fs.chownSync(file, ctx.account.uid, ctx.account.gid);
}

/** HOME for a server: root's home is not readable by the unprivileged account. */
export function serverHome(ctx: Context, dir: string): NodeJS.ProcessEnv {
  return ctx.account ? { HOME: dir, USER: ctx.account.name, LOGNAME: ctx.account.name } : {};
}
