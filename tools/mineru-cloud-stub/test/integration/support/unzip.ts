/** Reads a downloaded archive with the `unzip` CLI, as an independent check of its format. */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Unzipped {
  names: string[];
  text(name: string): string;
  bytes(name: string): Buffer;
  /** Whether `unzip -t` finds the archive sound. */
  sound: boolean;
}

export function unzipBuffer(zip: Buffer): Unzipped {
  const dir = mkdtempSync(join(tmpdir(), 'mineru-zip-'));
  const path = join(dir, 'result.zip');
  writeFileSync(path, zip);
  const sound = spawnSync('unzip', ['-tq', path]).status === 0;
  const names = sound
    ? execFileSync('unzip', ['-Z1', path], { encoding: 'utf8' }).trim().split('\n')
    : [];
  const files = new Map(names.map((name) => [name, execFileSync('unzip', ['-p', path, name])]));
  rmSync(dir, { recursive: true, force: true });
  return {
    names,
    sound,
    bytes: (name) => files.get(name) ?? Buffer.alloc(0),
    text: (name) => (files.get(name) ?? Buffer.alloc(0)).toString('utf8'),
  };
}

export async function download(url: string): Promise<{ status: number; zip: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, zip: Buffer.from(await res.arrayBuffer()) };
}
