/**
 * Wrapper builds: two builds of one module wait for each other (on a fresh machine, at the same
 * time, both would compile the same packages); builds of different modules do not. A stand-in
 * `go` on PATH records when each build starts and ends.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type GoWrapper, goBinaryPath, goBuildWrapper } from '../../src/cli/go-binary';
import { resolveSettings } from '../../src/lib/settings';

describe('goBuildWrapper', () => {
  let dir: string;
  let savedPath: string | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'testenv-go-'));
    const fakeGo = path.join(dir, 'fake-bin', 'go');
    fs.mkdirSync(path.dirname(fakeGo));
    // `go build -trimpath -ldflags X -o <out>/ <packages...>`: one empty binary per package.
    fs.writeFileSync(
      fakeGo,
      [
        '#!/bin/sh',
        `echo "start $(basename "$PWD")" >> ${dir}/builds.log`,
        'sleep 0.3',
        'shift 4; out=$2; shift 2',
        'for pkg in "$@"; do : > "$out$(basename "$pkg")"; done',
        `echo "end $(basename "$PWD")" >> ${dir}/builds.log`,
      ].join('\n'),
      { mode: 0o755 },
    );
    savedPath = process.env.PATH;
    process.env.PATH = `${path.dirname(fakeGo)}:${savedPath ?? ''}`;
  });
  afterEach(() => {
    process.env.PATH = savedPath;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function wrapper(module: string, binary: string, workName: string): GoWrapper {
    const moduleDir = path.join(dir, 'modules', module);
    fs.mkdirSync(moduleDir, { recursive: true });
    fs.writeFileSync(path.join(moduleDir, 'go.mod'), `module ${module}\n\nrequire x v1.0.0\n`);
    fs.writeFileSync(path.join(moduleDir, 'go.sum'), '');
    const program = { binary, module: `x/cmd/${binary}`, version: 'v1.0.0' };
    return { dir: moduleDir, programs: [program], ldflags: '', workName };
  }

  it('runs two builds of one module one after the other, and other modules alongside', async () => {
    const settings = resolveSettings({ PELITA_CACHE_DIR: path.join(dir, 'cache') }, 0, dir);
    const controlPlane = wrapper('kube', 'apiserver', 'kube-a');
    const node = { ...wrapper('kube', 'kubelet', 'kube-b'), dir: controlPlane.dir };
    const other = wrapper('etcd', 'etcd', 'etcd');

    await Promise.all([
      goBuildWrapper(settings, controlPlane),
      goBuildWrapper(settings, node),
      goBuildWrapper(settings, other),
    ]);

    const log = fs.readFileSync(path.join(dir, 'builds.log'), 'utf8').trim().split('\n');
    const at = (line: string) => log.indexOf(line);
    expect(at('end kube-a')).toBeLessThan(at('start kube-b'));
    expect(at('start etcd')).toBeLessThan(at('end kube-a'));
    for (const w of [controlPlane, node, other]) {
      expect(fs.existsSync(goBinaryPath(settings, w.programs[0]!))).toBe(true);
    }
  });

  it('still runs the next build of a module when the one before it failed', async () => {
    const settings = resolveSettings({ PELITA_CACHE_DIR: path.join(dir, 'cache') }, 0, dir);
    const broken = wrapper('kube', 'apiserver', 'kube-a');
    broken.programs = [{ ...broken.programs[0]!, version: 'v9.9.9' }]; // not in its go.mod
    const node = { ...wrapper('kube', 'kubelet', 'kube-b'), dir: broken.dir };

    const results = await Promise.allSettled([
      goBuildWrapper(settings, broken),
      goBuildWrapper(settings, node),
    ]);

    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect(fs.existsSync(goBinaryPath(settings, node.programs[0]!))).toBe(true);
  });
});
