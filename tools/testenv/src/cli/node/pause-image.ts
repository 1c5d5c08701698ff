// The pod sandbox image, made here: no registry is reachable, so registry.k8s.io/pause is a
// static Go program (go/pause) in a one-file image, imported into the node's containerd.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Settings } from '../../lib/settings';
import { goBuildFlags } from '../go-binary';
import { findExecutable, run, runChecked } from '../proc';
import { type NodePaths, PAUSE_IMAGE } from './node-config';

const PAUSE_SOURCE = path.join(__dirname, '..', '..', '..', 'go', 'pause');

export const pauseBinary = (settings: Settings) => path.join(settings.binDir, 'pause');

/** Built beside the other Go binaries; the source is a few lines, so it is rebuilt when absent. */
export async function buildPause(settings: Settings): Promise<void> {
  const go = findExecutable('go', ['/usr/local/go/bin']);
  if (go === undefined) throw new Error('go not found on PATH nor in /usr/local/go/bin');
  fs.mkdirSync(settings.binDir, { recursive: true });
  await runChecked(go, ['build', ...goBuildFlags(), '-o', pauseBinary(settings), '.'], {
    cwd: PAUSE_SOURCE,
    env: { CGO_ENABLED: '0', GOWORK: 'off' },
  });
}

/** ctr on the node's containerd, in the CRI plugin's namespace. */
function ctr(paths: NodePaths, args: string[], input?: string) {
  return runChecked(
    'ctr',
    ['--address', paths.containerdSocket, '--namespace', 'k8s.io', ...args],
    {
      input,
      timeoutMs: 5 * 60_000,
    },
  );
}

export async function importPauseImage(settings: Settings, paths: NodePaths): Promise<void> {
  const { stdout } = await ctr(paths, ['images', 'list', '--quiet']);
  if (stdout.split('\n').includes(PAUSE_IMAGE)) return;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pelita-pause-'));
  const archive = path.join(scratch, 'pause.tar');
  const buildah = (...args: string[]) => runChecked('buildah', args);
  const container = (await buildah('from', '--pull=never', 'scratch')).stdout.trim();
  try {
    await buildah('copy', container, pauseBinary(settings), '/pause');
    await buildah('config', '--entrypoint', '["/pause"]', container);
    await buildah('commit', '--quiet', container, PAUSE_IMAGE);
    await buildah('push', '--quiet', PAUSE_IMAGE, `docker-archive:${archive}:${PAUSE_IMAGE}`);
    await ctr(paths, ['images', 'import', archive]);
  } finally {
    await run('buildah', ['rm', container]);
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
