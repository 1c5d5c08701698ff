// Servers built from source with `go install module@version` into <cache>/bin. A stamp file
// beside each binary records the module version, so bumping the pin rebuilds it.
import fs from 'node:fs';
import path from 'node:path';
import { findExecutable, runChecked } from './proc';
import { type Settings } from './settings';

export interface GoProgram {
  binary: string;
  /** Package path of the main package, as given to `go install`. */
  module: string;
  version: string;
}

export function goBinaryPath(settings: Settings, program: GoProgram): string {
  return path.join(settings.binDir, program.binary);
}

function stampPath(settings: Settings, program: GoProgram): string {
  return `${goBinaryPath(settings, program)}.version`;
}

function pin(program: GoProgram): string {
  return `${program.module}@${program.version}`;
}

export function isGoBinaryCurrent(settings: Settings, program: GoProgram): boolean {
  try {
    const stamp = fs.readFileSync(stampPath(settings, program), 'utf8').trim();
    return stamp === pin(program) && fs.existsSync(goBinaryPath(settings, program));
  } catch {
    return false;
  }
}

export async function goInstall(settings: Settings, program: GoProgram): Promise<void> {
  const go = findExecutable('go', ['/usr/local/go/bin']);
  if (go === undefined) throw new Error('go not found on PATH nor in /usr/local/go/bin');
  fs.mkdirSync(settings.binDir, { recursive: true });
  // Pure-Go builds: no C toolchain needed and the binaries run anywhere.
  await runChecked(go, ['install', pin(program)], {
    env: { GOBIN: settings.binDir, CGO_ENABLED: '0' },
    timeoutMs: 60 * 60_000,
  });
  fs.writeFileSync(stampPath(settings, program), `${pin(program)}\n`);
}
