// Kernel settings a node process changes on the host, recorded before the first change and put
// back on stop.
import fs from 'node:fs';

const sysctlFile = (name: string) => `/proc/sys/${name}`;
const readSysctl = (name: string) => fs.readFileSync(sysctlFile(name), 'utf8').trim();
export const writeSysctl = (name: string, value: string) =>
  fs.writeFileSync(sysctlFile(name), value);

/**
 * Records the host's values once, in `file`: a second start (after a crash) must not record the
 * values the first one set, or the restore would never put the originals back.
 */
export function saveSysctls(file: string, names: readonly string[]): void {
  if (fs.existsSync(file)) return;
  const saved = Object.fromEntries(names.map((name) => [name, readSysctl(name)]));
  fs.writeFileSync(file, `${JSON.stringify(saved, null, 2)}\n`);
}

/** Puts back what `saveSysctls` recorded in `file`, then forgets it. */
export function restoreSysctls(file: string): void {
  if (!fs.existsSync(file)) return;
  const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  for (const [name, value] of Object.entries(saved)) writeSysctl(name, value);
  fs.rmSync(file);
}
