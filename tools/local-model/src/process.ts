/**
 * The local model as a child process (its native library stays out of the caller's process and
 * out of jest's module system): started from the build output on a free port, resolved once it
 * prints where it listens.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface LocalModelProcess {
  /** Base URL for OpenAI clients, ending in `/v1`: the chat lane. */
  url: string;
  /** The background lane's base URL (summaries): runs beside the chat, after it. */
  backgroundUrl: string;
  model: string;
  stop(): Promise<void>;
}

export async function startLocalModel(
  env: Record<string, string> = {},
): Promise<LocalModelProcess> {
  // The build output, from src/ (tests) and dist/ alike.
  const main = join(__dirname, '..', 'dist', 'main.js');
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the local model exited with ${code}`)));
  });
  const { url, background_url, model } = JSON.parse(line) as {
    url: string;
    background_url: string;
    model: string;
  };
  return {
    url,
    backgroundUrl: background_url,
    model,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
