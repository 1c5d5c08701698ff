// The three commands. Servers are handled concurrently; each one's steps are skipped when their
// result is already there, which is what makes `up` idempotent and fast on a warm machine.
import fs from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';
import { writeEnvFile } from '../lib/env-file';
import { envFilePath, type Settings } from '../lib/settings';
import { waitFor } from '../lib/wait-for';
import { ensureAccount } from './account';
import { createApt } from './apt';
import { withLock } from './lock';
import { type Log, seconds } from './log';
import { readLivePid, tail } from './proc';
import { servers } from './registry';
import { type Context, type Server, makeOwnedDir, serverPaths } from './server';

const ENV_FILE_COMMENT = [
  'Connection settings of the test servers, written by `make testenv` (tools/testenv).',
  'Loaded into process.env by tools/testenv/src/lib/jest-env.ts.',
].join('\n');

/** A probe that throws (e.g. client binary missing) just means "not ready". */
async function ready(server: Server, settings: Settings): Promise<boolean> {
  try {
    return await server.isReady(settings);
  } catch {
    return false;
  }
}

function logTail(logFile: string): string {
  try {
    return tail(fs.readFileSync(logFile, 'utf8'), 25);
  } catch {
    return '(no log)';
  }
}

/** Installs the server when it is not (yet, or at its pinned version); true if it did. */
async function installOne(ctx: Context, server: Server): Promise<boolean> {
  if (server.isInstalled(ctx)) return false;
  const began = Date.now();
  ctx.log(server.name, 'installing');
  await server.install(ctx);
  if (!server.isInstalled(ctx)) throw new Error('installed, yet its binaries are still missing');
  ctx.log(server.name, `installed in ${seconds(Date.now() - began)}`);
  return true;
}

async function upOne(ctx: Context, server: Server): Promise<void> {
  const say = (message: string) => ctx.log(server.name, message);
  // Whatever still runs from before a version bump runs the old binaries: stop it all (kube and
  // node have processes beside the one whose pid the checks below watch).
  if (await installOne(ctx, server)) await server.stop(ctx);
  if (await ready(server, ctx)) return say('already running');
  const { dir, pidFile, logFile } = serverPaths(ctx, server.name);
  makeOwnedDir(ctx, dir);
  const starting = Date.now();
  // A live pid that is not ready yet is a start still in progress (e.g. an interrupted `up`).
  if (readLivePid(pidFile) === undefined) await server.start(ctx);
  const alive = () => readLivePid(pidFile) !== undefined;
  const state = await waitFor(
    async () => (alive() ? (await ready(server, ctx)) && 'ready' : 'exited'),
    { what: server.name, timeoutMs: server.startTimeoutMs, intervalMs: 250 },
  ).catch(() => 'not ready');
  if (state === 'ready') return say(`started, ready in ${seconds(Date.now() - starting)}`);
  const why = state === 'exited' ? 'exited' : `not ready after ${seconds(server.startTimeoutMs)}`;
  throw new Error(`${why}; end of ${logFile}:\n${logTail(logFile)}`);
}

function lockFile(settings: Settings): string {
  fs.mkdirSync(settings.dir, { recursive: true, mode: 0o755 });
  return path.join(settings.dir, 'testenv.lock');
}

const waiting = (log: Log) => (holder: number) =>
  log('testenv', `waiting for another up/down to finish (pid ${holder})`);

/** Runs `step` for each of `which` concurrently; logs each failure and returns who failed. */
async function forEachServer(
  log: Log,
  step: (server: Server) => Promise<unknown>,
  which: readonly Server[] = servers,
): Promise<{ ok: Server[]; failed: string[] }> {
  const outcomes = await Promise.all(
    which.map((server) =>
      step(server).then(
        () => ({ server, error: undefined }),
        (error: unknown) => ({ server, error }),
      ),
    ),
  );
  const ok: Server[] = [];
  const failed: string[] = [];
  for (const { server, error } of outcomes) {
    if (error === undefined) ok.push(server);
    else {
      failed.push(server.name);
      log(server.name, `FAILED: ${error instanceof Error ? error.message : inspect(error)}`);
    }
  }
  return { ok, failed };
}

async function context(settings: Settings, log: Log): Promise<Context> {
  const isRoot = process.getuid?.() === 0;
  const account = isRoot ? await ensureAccount(settings.userName) : undefined;
  return { ...settings, account, apt: createApt(log), log };
}

/** What `up` starts: the servers the tests use, or with `e2e` also those only `make e2e` uses. */
export type Group = 'tests' | 'e2e';

export async function up(settings: Settings, log: Log, group: Group = 'tests'): Promise<number> {
  return withLock(lockFile(settings), waiting(log), async () => {
    const began = Date.now();
    const ctx = await context(settings, log);
    const wanted = servers.filter((server) => group === 'e2e' || !server.e2eOnly);
    const { ok, failed } = await forEachServer(log, (server) => upOne(ctx, server), wanted);
    // A server left out of this `up` but running from an earlier `up e2e` keeps its keys.
    const others = servers.filter((server) => !wanted.includes(server));
    const running = await Promise.all(others.map((server) => ready(server, settings)));
    const env: Record<string, string> = {};
    for (const server of [...ok, ...others.filter((_, i) => running[i])]) {
      Object.assign(env, server.env(settings));
    }
    // Only ready servers get keys, so tests of a failed one say which server is missing.
    env.PELITA_TESTENV_DIR = settings.dir;
    writeEnvFile(envFilePath(settings), env, ENV_FILE_COMMENT);
    const summary = failed.length === 0 ? 'all ready' : `failed: ${failed.join(', ')}`;
    log('testenv', `${summary} in ${seconds(Date.now() - began)}; env in ${envFilePath(settings)}`);
    return failed.length === 0 ? 0 : 1;
  });
}

/**
 * Only what `up` installs, in the cache, without starting or stopping anything: to fill a cache
 * ahead of time, or to time a cold install (an empty PELITA_CACHE_DIR, GOCACHE and GOMODCACHE)
 * beside servers that keep running.
 */
export async function install(settings: Settings, log: Log): Promise<number> {
  return withLock(lockFile(settings), waiting(log), async () => {
    const began = Date.now();
    const ctx = await context(settings, log);
    const { failed } = await forEachServer(log, async (server) => {
      if (!(await installOne(ctx, server))) log(server.name, 'already installed');
    });
    const summary = failed.length === 0 ? 'all installed' : `failed: ${failed.join(', ')}`;
    log('testenv', `${summary} in ${seconds(Date.now() - began)}; cache ${settings.cacheDir}`);
    return failed.length === 0 ? 0 : 1;
  });
}

export async function down(settings: Settings, log: Log): Promise<number> {
  return withLock(lockFile(settings), waiting(log), async () => {
    // Remove the env file first: tests then report "run make testenv" instead of refused connections.
    fs.rmSync(envFilePath(settings), { force: true });
    await Promise.all(
      servers.map(async (server) => {
        const began = Date.now();
        const running = readLivePid(serverPaths(settings, server.name).pidFile) !== undefined;
        await server.stop(settings);
        log(server.name, running ? `stopped in ${seconds(Date.now() - began)}` : 'not running');
      }),
    );
    return 0;
  });
}

export async function status(settings: Settings, log: Log): Promise<number> {
  const states = await Promise.all(
    servers.map(async (server) => {
      const pid = readLivePid(serverPaths(settings, server.name).pidFile);
      const isReady = await ready(server, settings);
      const state = isReady ? 'ready' : pid !== undefined ? 'running, not ready' : 'stopped';
      const details = [pid === undefined ? '' : `pid ${pid}`];
      if (!server.isInstalled(settings)) details.push('not installed');
      return { server, isReady, line: [state, ...details].filter(Boolean).join(', ') };
    }),
  );
  // Probes finish in any order; report in registry order.
  for (const { server, line } of states) log(server.name, line);
  const envFile = envFilePath(settings);
  log('testenv', fs.existsSync(envFile) ? `env in ${envFile}` : `no env file (${envFile})`);
  // The node's servers count only after `up e2e`: a plain `up` leaves them stopped.
  return states.every((s) => s.isReady || s.server.e2eOnly) ? 0 : 1;
}
