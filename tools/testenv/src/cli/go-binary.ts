// Servers built from source into <cache>/bin: `go install module@version`, or `go build` inside a
// wrapper module committed here (for modules whose go.mod has replace directives, which `go
// install` refuses, and for programs that share most of their packages). A stamp file beside each
// binary records the version (and build tags), so a pin bump rebuilds.
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
  /** Build tags; they change what the binary contains, so the stamp records them. */
  tags?: string;
}

export function goBinaryPath(settings: Settings, program: GoProgram): string {
  return path.join(settings.binDir, program.binary);
}

function stampPath(settings: Settings, program: GoProgram): string {
  return `${goBinaryPath(settings, program)}.version`;
}

/**
 * What the stamp says. Only what changes the program: the flags below do not enter it, so
 * binaries built before they were added stay current.
 */
function pin(program: GoProgram): string {
  const tags = program.tags === undefined ? '' : ` -tags ${program.tags}`;
  return `${program.module}@${program.version}${tags}`;
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

/** Pure-Go builds: no C toolchain needed and the binaries run anywhere. */
const GO_ENV = { CGO_ENABLED: '0', GOWORK: 'off' };

/**
 * The flags of every Go build here. -trimpath and CGO_ENABLED are part of each package's
 * build-cache key: the same everywhere, packages two builds share (the standard library first)
 * compile once, and a rebuild on a warm cache only links. `-s -w` leaves out the symbol table and
 * DWARF, which nothing here reads: the link, single-threaded and the last step of each build, is
 * shorter, and the binaries smaller.
 */
export function goBuildFlags(ldflags = '', tags?: string): string[] {
  const flags = ['-trimpath', '-ldflags', `-s -w ${ldflags}`.trim()];
  return tags === undefined ? flags : [...flags, '-tags', tags];
}

/**
 * One `go install` of main packages of one module version (e.g. prometheus and promtool), so
 * what they share compiles once; they take the first one's ldflags and tags.
 */
export async function goInstall(
  settings: Settings,
  programs: GoProgram | readonly GoProgram[],
): Promise<void> {
  const list: readonly GoProgram[] = Array.isArray(programs) ? programs : [programs];
  const [first] = list;
  if (first === undefined) return;
  const go = requireGo();
  fs.mkdirSync(settings.binDir, { recursive: true });
  const packages = list.map((program) => `${program.module}@${program.version}`);
  await runChecked(go, ['install', ...goBuildFlags(first.ldflags, first.tags), ...packages], {
    env: { ...GO_ENV, GOBIN: settings.binDir },
    timeoutMs: 60 * 60_000,
  });
  for (const program of list) fs.writeFileSync(stampPath(settings, program), `${pin(program)}\n`);
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
}

/** The binary `go build -o <dir>/` names a main package: its last element, or the one before /vN. */
function defaultBinaryName(packagePath: string): string {
  const parts = packagePath.split('/');
  const last = parts.at(-1) ?? packagePath;
  return /^v[2-9][0-9]*$/.test(last) && parts.length > 1 ? (parts.at(-2) ?? last) : last;
}

interface WrapperBuild {
  programs: Set<GoProgram>;
  done: Promise<void>;
}

/** Per wrapper module: the build still taking requests, and the last build started. */
const collecting = new Map<string, WrapperBuild>();
const lastBuild = new Map<string, Promise<void>>();

/**
 * Builds `programs` (by default all) of a wrapper. Requests for one wrapper made in the same tick
 * (all servers install together: the control plane and the node both want Kubernetes programs)
 * become one `go build`, which compiles their shared packages once and links the binaries in
 * parallel. A later request waits for the build before it: at the same time both would compile
 * the same packages, since the build cache only shares what is already in it.
 */
export function goBuildWrapper(
  settings: Settings,
  wrapper: GoWrapper,
  programs: readonly GoProgram[] = wrapper.programs,
): Promise<void> {
  let build = collecting.get(wrapper.dir);
  if (build === undefined) {
    const previous = lastBuild.get(wrapper.dir) ?? Promise.resolve();
    const requested = new Set<GoProgram>();
    const done = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => collecting.delete(wrapper.dir))
      .then(() => previous.catch(() => undefined))
      .then(() => buildWrapper(settings, wrapper, [...requested]));
    build = { programs: requested, done };
    collecting.set(wrapper.dir, build);
    lastBuild.set(wrapper.dir, done);
  }
  for (const program of programs) build.programs.add(program);
  return build.done;
}

/**
 * One `go build` in a copy of the wrapper under the cache: no go.work above it, and the
 * repository stays untouched.
 */
async function buildWrapper(
  settings: Settings,
  wrapper: GoWrapper,
  programs: readonly GoProgram[],
): Promise<void> {
  if (programs.length === 0) return;
  const go = requireGo();
  const work = path.join(settings.cacheDir, 'go-wrappers', path.basename(wrapper.dir));
  const out = path.join(work, 'out');
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  for (const file of fs.readdirSync(wrapper.dir)) {
    if (file === 'go.mod' || file === 'go.sum' || file.endsWith('.go')) {
      fs.copyFileSync(path.join(wrapper.dir, file), path.join(work, file));
    }
  }
  const goMod = fs.readFileSync(path.join(work, 'go.mod'), 'utf8');
  for (const program of programs) {
    if (!goMod.includes(` ${program.version}`)) {
      throw new Error(`${wrapper.dir}/go.mod does not require ${pin(program)}`);
    }
  }
  const packages = programs.map((program) => program.module);
  await runChecked(go, ['build', ...goBuildFlags(wrapper.ldflags), '-o', `${out}/`, ...packages], {
    cwd: work,
    env: GO_ENV,
    timeoutMs: 60 * 60_000,
  });
  fs.mkdirSync(settings.binDir, { recursive: true });
  for (const program of programs) {
    // A rename over a running binary is safe: the running process keeps the old file.
    fs.renameSync(
      path.join(out, defaultBinaryName(program.module)),
      goBinaryPath(settings, program),
    );
    fs.writeFileSync(stampPath(settings, program), `${pin(program)}\n`);
  }
  fs.rmSync(work, { recursive: true, force: true });
}
