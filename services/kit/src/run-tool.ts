/**
 * Runs one command-line tool (poppler, tesseract, LibreOffice) in its own process group, with a time limit
 * that kills the whole group and a cap on what it may print: a PDF that makes a tool hang or
 * loop never outlives its request or task.
 */
import { spawn } from 'node:child_process';

/** Why a run failed: it could not start, exited non-zero, hit the time limit, was cancelled, printed too much. */
export type ToolFailure = 'spawn' | 'exit' | 'timeout' | 'cancelled' | 'output';

export class ToolError extends Error {
  constructor(
    message: string,
    readonly tool: string,
    readonly failure: ToolFailure = 'exit',
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

export interface ToolOptions {
  timeoutMs: number;
  /** Standard output kept at most; more fails the run. */
  maxOutputBytes?: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

export function runTool(command: string, args: string[], options: ToolOptions): Promise<string> {
  const { timeoutMs, maxOutputBytes = 64 * 1024 * 1024, signal, env } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(env ? { env: { ...process.env, ...env } } : {}),
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = '';
    let failure: { kind: ToolFailure; reason: string } | undefined;
    const killGroup = (kind: ToolFailure, reason: string) => {
      failure ??= { kind, reason };
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(
      () => killGroup('timeout', `timed out after ${timeoutMs} ms`),
      timeoutMs,
    );
    const onAbort = () => killGroup('cancelled', 'cancelled');
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxOutputBytes)
        killGroup('output', `printed more than ${maxOutputBytes} bytes`);
      else out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      reject(new ToolError(`${command} could not run: ${err.message}`, command, 'spawn'));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (failure) {
        return reject(new ToolError(`${command} ${failure.reason}`, command, failure.kind));
      }
      if (code !== 0) {
        const detail = stderr.trim().split('\n').slice(-3).join(' ');
        return reject(new ToolError(`${command} exited with ${code}: ${detail}`, command));
      }
      resolve(Buffer.concat(out).toString('utf8'));
    });
  });
}
