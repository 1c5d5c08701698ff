// Servers built from source into <cache>/bin: `go install module@version`, or `go build` inside a
// wrapper module committed here (for modules whose go.mod has replace directives, which `go
// install` refuses). A stamp file beside each binary records the version, so a pin bump rebuilds.
import fs from 'node:fs';
import path from 'node:path';
import { type Settings } from '../lib/settings';
import { findExecutable, runChecked } from './proc';

export interface GoProgram {
  binary: string;
  /** Package path of the main package, as given to `go install`. */
  module: string;
  version: string;
  /** Linker flags, e.g. `-X` version variables a release build sets. */
  ldflags?: string;
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

function requireGo(): string {
  const go = findExecutable('go', ['/usr/local/go/bin']);
  if (go === undefined) throw new Error('go not found on PATH nor in /usr/local/go/bin');
  return go;
}

export async function goInstall(settings: Settings, program: GoProgram): Promise<void> {
  const go = requireGo();
  fs.mkdirSync(settings.binDir, { recursive: true });
  // Pure-Go builds: no C toolchain needed and the binaries run anywhere.
  const ldflags = program.ldflags === undefined ? [] : ['-ldflags', program.ldflags];
  await runChecked(go, ['install', ...ldflags, pin(program)], {
    env: { GOBIN: settings.binDir, CGO_ENABLED: '0' },
    timeoutMs: 60 * 60_000,
  });
  fs.writeFileSync(stampPath(settings, program), `${pin(program)}\n`);
}

/**
 * Main packages built inside a committed wrapper module: go.mod, go.sum and Go files (a tools.go
 * importing the programs, or the wrapper's own main package).
 */
export interface GoWrapper {
  /** Directory of the wrapper module, in the repository. */
  dir: string;
  /** `module` is the main package's path; `version` the one the wrapper's go.mod requires. */
  programs: readonly GoProgram[];
  /** Linker flags for all of them (the programs' own `ldflags` are not used here). */
  ldflags: string;
  /** Name of its build directory under <cache>/go-wrappers when two builds share a module. */
  workName?: string;
}

/** The binary `go build -o <dir>/` names a main package: its last element, or the one before /vN. */
function defaultBinaryName(packagePath: string): string {
  const parts = packagePath.split('/');
  const last = parts.at(-1) ?? packagePath;
  return /^v[2-9][0-9]*$/.test(last) && parts.length > 1 ? (parts.at(-2) ?? last) : last;
}

/** The last build started per wrapper module directory, to queue the next one behind it. */
const buildsByModule = new Map<string, Promise<void>>();

/**
 * One `go build` for all programs, so their shared packages compile once. It runs in a copy of
 * the wrapper under the cache: no go.work above it, and the repository stays untouched.
 *
 * Two builds of one module (the control plane's and the node's programs) run one after the
 * other: at the same time, on a fresh machine, both would compile the same packages, since the
 * build cache only shares what is already in it.
 */
export function goBuildWrapper(settings: Settings, wrapper: GoWrapper): Promise<void> {
  const previous = buildsByModule.get(wrapper.dir) ?? Promise.resolve();
  const build = previous.catch(() => undefined).then(() => buildWrapper(settings, wrapper));
  buildsByModule.set(wrapper.dir, build);
  return build;
}

async function buildWrapper(settings: Settings, wrapper: GoWrapper): Promise<void> {
  const go = requireGo();
  const name = wrapper.workName ?? path.basename(wrapper.dir);
  const work = path.join(settings.cacheDir, 'go-wrappers', name);
  const out = path.join(work, 'out');
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  for (const file of fs.readdirSync(wrapper.dir)) {
    if (file === 'go.mod' || file === 'go.sum' || file.endsWith('.go')) {
      fs.copyFileSync(path.join(wrapper.dir, file), path.join(work, file));
    }
  }
  const goMod = fs.readFileSync(path.join(work, 'go.mod'), 'utf8');
  for (const program of wrapper.programs) {
    if (!goMod.includes(` ${program.version}`)) {
      throw new Error(`${wrapper.dir}/go.mod does not require ${pin(program)}`);
    }
  }
  const packages = wrapper.programs.map((program) => program.module);
  // -trimpath and CGO_ENABLED are in every package's build-cache key: keep them, and a rebuild on
  // a warm cache (a new machine image, a removed stamp) only links.
  await runChecked(
    go,
    ['build', '-trimpath', '-ldflags', wrapper.ldflags, '-o', `${out}/`, ...packages],
    {
      cwd: work,
      env: { CGO_ENABLED: '0', GOWORK: 'off' },
      timeoutMs: 60 * 60_000,
    },
  );
  fs.mkdirSync(settings.binDir, { recursive: true });
  for (const program of wrapper.programs) {
    // A rename over a running binary is safe: the running process keeps the old file.
    fs.renameSync(
      path.join(out, defaultBinaryName(program.module)),
      goBinaryPath(settings, program),
    );
    fs.writeFileSync(stampPath(settings, program), `${pin(program)}\n`);
  }
  fs.rmSync(work, { recursive: true, force: true });
}
