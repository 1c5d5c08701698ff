/**
 * Go builds: requests for one wrapper module in the same tick become one `go build` (on a fresh
 * machine the kube and node servers both want Kubernetes programs); a later request waits for the
 * build before it; builds of different modules run alongside. A stand-in `go` on PATH records
 * each call's arguments and when it starts and ends.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  type GoProgram,
  type GoWrapper,
  goBinaryPath,
  goBuildWrapper,
  goInstall,
  isGoBinaryCurrent,
} from '../../src/cli/go-binary';
import { resolveSettings, type Settings } from '../../src/lib/settings';

describe('Go builds', () => {
  let dir: string;
  let settings: Settings;
  let savedPath: string | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'testenv-go-'));
    settings = resolveSettings({ PELITA_CACHE_DIR: path.join(dir, 'cache') }, 0, dir);
    const fakeGo = path.join(dir, 'fake-bin', 'go');
    fs.mkdirSync(path.dirname(fakeGo));
    // `go build <3 flags> -o <out>/ <packages...>`: one empty binary per package.
    // `go install <flags...> <module@version...>`: one empty binary per module in $GOBIN.
    fs.writeFileSync(
      fakeGo,
      [
        '#!/bin/sh',
        `echo "start $(basename "$PWD") $*" >> ${dir}/go.log`,
        'sleep 0.3',
        'if [ "$1" = build ]; then',
        '  shift 4; out=$2; shift 2',
        '  for pkg in "$@"; do : > "$out$(basename "$pkg")"; done',
        'else',
        '  for arg in "$@"; do case $arg in *@*) name=${arg%@*}; : > "$GOBIN/${name##*/}";; esac; done',
        'fi',
        `echo "end $(basename "$PWD")" >> ${dir}/go.log`,
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

  const goLog = () => fs.readFileSync(path.join(dir, 'go.log'), 'utf8').trim().split('\n');
  const program = (binary: string): GoProgram => ({
    binary,
    module: `x/cmd/${binary}`,
    version: 'v1.0.0',
  });

  function wrapper(module: string, programs: GoProgram[]): GoWrapper {
    const moduleDir = path.join(dir, 'modules', module);
    fs.mkdirSync(moduleDir, { recursive: true });
    fs.writeFileSync(path.join(moduleDir, 'go.mod'), `module ${module}\n\nrequire x v1.0.0\n`);
    fs.writeFileSync(path.join(moduleDir, 'go.sum'), '');
    return { dir: moduleDir, programs, ldflags: '-X main.version=v1.0.0' };
  }

  const built = (p: GoProgram) =>
    fs.existsSync(goBinaryPath(settings, p)) && isGoBinaryCurrent(settings, p);

  it('builds what the same tick asks of one wrapper in one go build, other wrappers alongside', async () => {
    const [apiserver, kubelet, unused] = ['apiserver', 'kubelet', 'unused'].map(program);
    const kube = wrapper('kube', [apiserver!, kubelet!, unused!]);
    const etcd = wrapper('etcd', [program('etcd')]);

    await Promise.all([
      goBuildWrapper(settings, kube, [apiserver!]),
      goBuildWrapper(settings, kube, [kubelet!]),
      goBuildWrapper(settings, etcd),
    ]);

    const log = goLog();
    expect(log.filter((line) => line.startsWith('start kube'))).toEqual([
      'start kube build -trimpath -ldflags -s -w -X main.version=v1.0.0 -o ' +
        `${path.join(settings.cacheDir, 'go-wrappers', 'kube', 'out')}/ x/cmd/apiserver x/cmd/kubelet`,
    ]);
    expect(log.findIndex((line) => line.startsWith('start etcd'))).toBeLessThan(
      log.indexOf('end kube'),
    );
    expect([apiserver, kubelet, ...etcd.programs].every((p) => built(p!))).toBe(true);
    expect(built(unused!)).toBe(false);
  });

  it('starts a later build of one wrapper after the running one, even when that one failed', async () => {
    const apiserver = program('apiserver');
    const kube = wrapper('kube', [apiserver, program('kubelet')]);
    const broken = { ...apiserver, version: 'v9.9.9' }; // not in its go.mod
    const first = goBuildWrapper(settings, kube, [broken]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = goBuildWrapper(settings, kube, [apiserver]);

    const results = await Promise.allSettled([first, second]);

    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect(built(apiserver)).toBe(true);
  });

  it('waits for the running build of a wrapper before the next one starts', async () => {
    const [apiserver, kubelet] = ['apiserver', 'kubelet'].map(program);
    const kube = wrapper('kube', [apiserver!, kubelet!]);
    const first = goBuildWrapper(settings, kube, [apiserver!]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await Promise.all([first, goBuildWrapper(settings, kube, [kubelet!])]);

    const log = goLog();
    expect(log.filter((line) => line.startsWith('start kube'))).toHaveLength(2);
    const starts = log.flatMap((line, i) => (line.startsWith('start kube') ? [i] : []));
    expect(log.indexOf('end kube')).toBeLessThan(starts[1]!);
  });

  it('installs several programs of one module in one go install, stamped with their build tags', async () => {
    const tags = 'remove_all_sd';
    const server = { ...program('server'), tags };
    const tool = { ...program('tool'), tags };

    await goInstall(settings, [server, tool]);

    expect(goLog()[0]).toBe(
      `start ${path.basename(process.cwd())} install -trimpath -ldflags -s -w -tags ${tags} ` +
        'x/cmd/server@v1.0.0 x/cmd/tool@v1.0.0',
    );
    expect(built(server) && built(tool)).toBe(true);
    expect(fs.readFileSync(`${goBinaryPath(settings, tool)}.version`, 'utf8')).toBe(
      `x/cmd/tool@v1.0.0 -tags ${tags}\n`,
    );
    // The same program without the tag is another build.
    expect(isGoBinaryCurrent(settings, { ...tool, tags: undefined })).toBe(false);
  });
});
