import { type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** Kills a child started by a test helper (SIGKILL: nothing to flush) and waits for its exit. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}
