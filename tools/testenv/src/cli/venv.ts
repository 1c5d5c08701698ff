// Python command-line tools from PyPI, each pinned in its own virtualenv under the cache.
import fs from 'node:fs';
import path from 'node:path';
import { type Settings } from '../lib/settings';
import { findExecutable, runChecked } from './proc';

export interface PythonTool {
  /** PyPI distribution name. */
  distribution: string;
  version: string;
}

function venvDir(settings: Settings, tool: PythonTool): string {
  return path.join(settings.cacheDir, `${tool.distribution}-${tool.version}`);
}

export function venvBin(settings: Settings, tool: PythonTool, command: string): string {
  return path.join(venvDir(settings, tool), 'bin', command);
}

export async function installVenv(settings: Settings, tool: PythonTool): Promise<void> {
  const python = findExecutable('python3');
  if (python === undefined) throw new Error('python3 not found on PATH');
  const dir = venvDir(settings, tool);
  // A half-made virtualenv from an interrupted install would pass for installed otherwise.
  fs.rmSync(dir, { recursive: true, force: true });
  // ensurepip installs pip into it: well under a minute alone, but it took more than two beside
  // a cold `up`'s Go builds on a busy 2-core machine.
  await runChecked(python, ['-m', 'venv', dir], { timeoutMs: 10 * 60_000 });
  await runChecked(
    path.join(dir, 'bin', 'pip'),
    ['install', '--quiet', '--disable-pip-version-check', `${tool.distribution}==${tool.version}`],
    { timeoutMs: 15 * 60_000 },
  );
  // Marks the install complete: the stamp is written only after pip succeeded.
  fs.writeFileSync(path.join(dir, '.installed'), `${tool.distribution}==${tool.version}\n`);
}

export function isVenvInstalled(settings: Settings, tool: PythonTool): boolean {
  return fs.existsSync(path.join(venvDir(settings, tool), '.installed'));
}
