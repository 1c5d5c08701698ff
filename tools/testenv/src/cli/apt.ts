// Debian packages. dpkg takes a lock, so concurrent installs would fail: requests made in the same
// tick (all servers start installing together) are merged into one apt-get call, and calls queue.
import fs from 'node:fs';
import { type Log, seconds } from './log';
import { run, runChecked } from './proc';

const POLICY_RC_D = '/usr/sbin/policy-rc.d';
const APT_ENV = { DEBIAN_FRONTEND: 'noninteractive' };
const APT_TIMEOUT_MS = 30 * 60_000;

export function createApt(log: Log): (packages: string[]) => Promise<void> {
  let queued: string[] = [];
  let pending: Promise<void> | undefined;
  let previous: Promise<unknown> = Promise.resolve();
  return (packages) => {
    if (packages.length === 0) return Promise.resolve();
    queued.push(...packages);
    pending ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      const batch = [...new Set(queued)].sort();
      queued = [];
      pending = undefined;
      const install = previous.then(() => installMissing(batch, log));
      previous = install.catch(() => undefined);
      return install;
    });
    return pending;
  };
}

async function missingPackages(packages: string[]): Promise<string[]> {
  // Unknown packages make dpkg-query exit non-zero but it still lists the known ones.
  const { stdout } = await run('dpkg-query', [
    '-W',
    '-f=${Package} ${db:Status-Status}\n',
    ...packages,
  ]);
  const installed = new Set(
    stdout
      .split('\n')
      .filter((line) => line.endsWith(' installed'))
      .map((line) => line.split(' ')[0]),
  );
  return packages.filter((name) => !installed.has(name));
}

async function installMissing(packages: string[], log: Log): Promise<void> {
  const missing = await missingPackages(packages);
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `missing Debian packages ${missing.join(' ')}: run as root or apt-get install them`,
    );
  }
  const started = Date.now();
  log('apt', `installing ${missing.join(' ')}`);
  // Debian's maintainer scripts start each server's system-wide instance unless policy-rc.d says
  // 101 ("not allowed"); we run our own instances, so block theirs for the duration of the install.
  const ownPolicy = !fs.existsSync(POLICY_RC_D);
  if (ownPolicy) fs.writeFileSync(POLICY_RC_D, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    const options = { env: APT_ENV, timeoutMs: APT_TIMEOUT_MS };
    await runChecked('apt-get', ['update', '-q'], options);
    await runChecked(
      'apt-get',
      ['install', '-y', '-q', '--no-install-recommends', ...missing],
      options,
    );
  } finally {
    if (ownPolicy) fs.rmSync(POLICY_RC_D, { force: true });
  }
  log('apt', `installed in ${seconds(Date.now() - started)}`);
}
