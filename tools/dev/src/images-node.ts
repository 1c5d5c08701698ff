/**
 * The Node binary the images run, when it is already on this machine: `make dev` then runs the
 * services on the runtime they ship with (so, for one, the AWS SDK's warning about Node 20 does
 * not apply). tools/bench/images-node.sh knows where the images' Node is kept; it is asked with
 * npm offline, so `make dev` never downloads it (`make bench` and `make images` do).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export interface NodeRuntime {
  /** The binary to start the services with. */
  path: string;
  version: string;
  /** Whether it is the images' Node (else this process's own). */
  images: boolean;
}

export function imagesNode(root: string): NodeRuntime {
  const own: NodeRuntime = { path: process.execPath, version: process.version, images: false };
  const found = spawnSync(join(root, 'tools', 'bench', 'images-node.sh'), {
    encoding: 'utf8',
    env: { ...process.env, npm_config_offline: 'true' },
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 30_000,
  });
  const path = found.status === 0 ? found.stdout.trim() : '';
  if (!path) return own;
  const version = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return version.status === 0 ? { path, version: version.stdout.trim(), images: true } : own;
}
