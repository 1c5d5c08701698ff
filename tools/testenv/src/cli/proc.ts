// Child processes: short commands we wait for, and servers we leave running after we exit.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { waitFor } from '../lib/wait-for';

/** An account to run a child as; undefined everywhere means "as ourselves". */
export interface Account {
  name: string;
  uid: number;
  gid: number;
}

export interface RunOptions {
  /** Merged over process.env. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  account?: Account | undefined;
  input?: string;
  timeoutMs?: number;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      uid: options.account?.uid,
      gid: options.account?.gid,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs,
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin?.end(options.input);
  });
}

export function tail(text: string, lines: number): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/** Like run, but a non-zero exit becomes an Error carrying the end of the output. */
export async function runChecked(
  command: string,
  args: string[],
  options: RunOptions = {},
): Promise<RunResult> {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    const output = tail(`${result.stdout}\n${result.stderr}`, 30);
    throw new Error(`${command} ${args.join(' ')} failed (exit ${result.code}):\n${output}`);
  }
  return result;
}

/** First executable named `name` on PATH or in `extraDirs` (sbin and Go's usual home are often off PATH). */
export function findExecutable(name: string, extraDirs: string[] = []): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/local/sbin', '/usr/sbin', '/sbin'];
  for (const dir of [...dirs, ...extraDirs]) {
    if (dir === '') continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

/**
 * A process's start time (clock ticks since boot), or undefined when it is gone or a zombie.
 * Stored beside the pid so a pid reused after a reboot is not mistaken for our server.
 */
export function processStartTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Field 2 (the command name) may hold spaces and parentheses; fields after the last ')' are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[0] === 'Z' && !hasOtherThreads(pid) ? undefined : fields[19];
}

/**
 * A zombie whose only thread is itself has exited (and waits for a reaper that, in containers
 * whose pid 1 does not reap, may never come); a zombie leader with live threads still runs.
 */
function hasOtherThreads(pid: number): boolean {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).length > 1;
  } catch {
    return false;
  }
}

export function pidRecord(pid: number): string {
  return `${pid} ${processStartTime(pid) ?? '?'}\n`;
}

/** The pid recorded in `file` if that very process still runs, else undefined (stale or no file). */
export function readLivePid(file: string): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const [pidText, started] = text.trim().split(' ');
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return processStartTime(pid) === started ? pid : undefined;
}

export interface DaemonSpec {
  command: string;
  args: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  account: Account | undefined;
  pidFile: string;
  logFile: string;
}

/** Starts a server in its own process group, detached from us, output to its log; records its pid. */
export function spawnDaemon(spec: DaemonSpec): number {
  const log = fs.openSync(spec.logFile, 'w');
  try {
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env },
      uid: spec.account?.uid,
      gid: spec.account?.gid,
      detached: true,
      stdio: ['ignore', log, log],
    });
    // A failed spawn leaves pid undefined and emits 'error' later; the throw below reports it.
    child.on('error', () => undefined);
    if (child.pid === undefined) throw new Error(`cannot start ${spec.command}`);
    child.unref();
    fs.writeFileSync(spec.pidFile, pidRecord(child.pid));
    return child.pid;
  } finally {
    fs.closeSync(log);
  }
}

/**
 * Stops the server recorded in `pidFile` with `signal`, escalating to SIGKILL of its whole
 * process group after `timeoutMs`. Returns whether a live server was found.
 */
export async function stopDaemon(
  pidFile: string,
  signal: NodeJS.Signals,
  timeoutMs = 30_000,
): Promise<boolean> {
  const pid = readLivePid(pidFile);
  if (pid !== undefined) {
    const gone = () => readLivePid(pidFile) === undefined;
    const what = `pid ${pid} to exit`;
    process.kill(pid, signal);
    try {
      await waitFor(gone, { what, timeoutMs, intervalMs: 100 });
    } catch {
      process.kill(-pid, 'SIGKILL');
      // A process SIGKILL does not end within seconds is beyond our help; its pid file goes anyway.
      await waitFor(gone, { what, timeoutMs: 5_000, intervalMs: 100 }).catch(() => undefined);
    }
  }
  fs.rmSync(pidFile, { force: true });
  return pid !== undefined;
}
