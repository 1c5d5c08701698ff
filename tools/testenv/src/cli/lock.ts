// One `up`/`down` at a time per state dir: two concurrent runs would race to start the same
// servers on the same ports. The lock records pid and start time, so a lock left by a killed
// run (or from before a reboot) is recognised as stale and taken over.
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { pidRecord, readLivePid } from './proc';

export async function withLock<T>(
  file: string,
  onWait: (holder: number) => void,
  body: () => Promise<T>,
  timeoutMs = 60 * 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let announced = false;
  for (;;) {
    try {
      fs.writeFileSync(file, pidRecord(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readLivePid(file);
    if (holder === undefined) {
      // Stale, or being written this very instant: only remove it if it is still unreadable soon after.
      await sleep(100);
      if (readLivePid(file) === undefined) fs.rmSync(file, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`${file} is held by pid ${holder}`);
    if (!announced) onWait(holder);
    announced = true;
    await sleep(500);
  }
  try {
    return await body();
  } finally {
    fs.rmSync(file, { force: true });
  }
}
